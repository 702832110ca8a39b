// /admin's traffic: the four flows (accepted, submitted to carriers, final receipts, inbound) per second over the
// last minute, and over the last 24 hours in 10-minute steps as a chart (console/assets/chart.js) with the same
// figures as a table for screen readers and browsers without scripts. Counted in the store, so on every node.
import { trafficCounts, TRAFFIC_FLOWS, type TrafficFlow } from '../../store/read-models.ts';
import { num, when } from '../console/format.ts';
import { fmt } from '../console/i18n.ts';
import { html, jsonScript, table, type Html } from '../console/html.ts';
import { dayBuckets } from './dashboard-memo.ts';
import type { AdminWords } from './i18n.ts';
import type { AdminContext } from './router.ts';

const MINUTE = 60_000;
const STEP = 10 * MINUTE;
const DAY = 24 * 3600_000;
const RATE = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

const FLOW_WORD: Record<TrafficFlow, keyof AdminWords> = {
  accepts: 'flowAccepts',
  submits: 'flowSubmits',
  receipts: 'flowReceipts',
  inbound: 'flowInbound',
};
const FLOW_COLOUR: Record<TrafficFlow, string> = {
  accepts: '#1d4f91',
  submits: '#7a4c00',
  receipts: '#1e6b33',
  inbound: '#6a1b9a',
};

/** The traffic now (per second over the last minute). */
export async function trafficNowSection(c: AdminContext): Promise<Html> {
  const { w } = c;
  const counts = await trafficCounts(c.app.store.db, c.now - MINUTE, c.now);
  const stats = TRAFFIC_FLOWS.map(
    (f) =>
      html`<li data-flow="${f}">${w[FLOW_WORD[f]]}<b>${fmt(w.ratePerSecond, { rate: RATE.format(counts[f] / 60) })}</b></li>`,
  );
  return html`<section class="card" aria-labelledby="traffic-now"><h2 id="traffic-now">${w.trafficNowTitle}</h2>
<p class="muted">${w.trafficNowIntro}</p><ul class="stats">${stats}</ul></section>`;
}

/** The last 24 hours in 10-minute steps, ending with the step that holds now. */
export async function trafficDaySection(c: AdminContext): Promise<Html> {
  const { w } = c;
  const zone = c.app.config.defaultTimeZone;
  const to = Math.floor(c.now / STEP) * STEP + STEP;
  const buckets = await dayBuckets(c.app.store.db, to - DAY, to, STEP, c.now);
  const totals = Object.fromEntries(
    TRAFFIC_FLOWS.map((f) => [f, num(buckets.reduce((sum, b) => sum + b[f], 0))]),
  ) as Record<TrafficFlow, string>;
  const data = {
    x: buckets.map((b) => Math.round(b.at / 1000)),
    series: TRAFFIC_FLOWS.map((f) => ({
      label: w[FLOW_WORD[f]],
      values: buckets.map((b) => b[f]),
      color: FLOW_COLOUR[f],
    })),
    timeZone: zone,
    labels: { time: fmt(w.chartAxisTimeZone, { zone }), count: w.chartAxisPerTenMinutes },
  };
  const busy = buckets.filter((b) => TRAFFIC_FLOWS.some((f) => b[f] > 0));
  return html`<section class="card" aria-labelledby="traffic-day"><h2 id="traffic-day">${w.trafficDayTitle}</h2>
<figure><div id="traffic-chart" class="chart" data-source="traffic-data" role="img" aria-label="${fmt(w.trafficChartLabel, totals)}"></div>
<figcaption class="muted">${w.trafficChartCaption}</figcaption></figure>
${jsonScript('traffic-data', data)}
<details><summary>${w.chartAsTable}</summary>${table(
    w.chartAsTable,
    [w.bucketFrom, ...TRAFFIC_FLOWS.map((f) => w[FLOW_WORD[f]])],
    busy.map((b) => [when(b.at, zone), ...TRAFFIC_FLOWS.map((f) => num(b[f]))]),
    fmt(w.trafficChartLabel, totals),
  )}</details></section>`;
}
