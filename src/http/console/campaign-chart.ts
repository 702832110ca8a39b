// A campaign's delivery chart: cumulative delivered and failed messages over time, drawn by uPlot
// (assets/chart.js) from the JSON the page carries, with its time axis in the account's time zone and the
// console's date format, both axes named and the lines' legend in plain words in the page's language; the same figures as a table for screen readers
// and browsers without scripts.
import type { TimelinePoint } from '../../store/read-models.ts';
import { num, when } from './format.ts';
import { html, jsonScript, table, type Html } from './html.ts';
import { fmt } from './i18n.ts';
import type { PageContext } from './router.ts';

export function deliveryChart(c: PageContext, timeline: { bucketMs: number; points: TimelinePoint[] }): Html {
  const { t } = c;
  const tz = c.account.time_zone;
  if (timeline.points.length === 0) return html`<p class="empty">${t.chartEmpty}</p>`;
  // Cumulative counts, from zero one bucket before the first outcome (one bucket alone would make no line).
  const data = {
    x: [Math.round((timeline.points[0].at - timeline.bucketMs) / 1000)],
    delivered: [0],
    failed: [0],
    timeZone: tz,
    labels: {
      time: fmt(t.chartAxisTime, { zone: tz }),
      count: t.chartAxisCount,
      delivered: t.chartDelivered,
      failed: t.chartFailed,
    },
  };
  let ok = 0;
  let bad = 0;
  for (const p of timeline.points) {
    data.x.push(Math.round(p.at / 1000));
    data.delivered.push((ok += p.delivered));
    data.failed.push((bad += p.failed));
  }
  return html`<figure>
<div id="chart" class="chart" role="img" aria-label="${fmt(t.chartLabel, { delivered: num(ok), failed: num(bad) })}"></div>
<figcaption class="muted">${fmt(t.chartCaption, { seconds: num(timeline.bucketMs / 1000) })}</figcaption></figure>
${jsonScript('chart-data', data)}
<details><summary>${t.chartTable}</summary>${table(
    t.chartTable,
    [t.pushWhen, t.delivered, t.failedCount],
    timeline.points.map((p) => [when(p.at, tz), num(p.delivered), num(p.failed)]),
    t.chartEmpty,
  )}</details>`;
}
