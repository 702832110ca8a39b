// /admin/margins' chart: charged, carrier cost and margin per month over the 12 months to the month shown, in
// shekels (credits at the price given), drawn by console/assets/chart.js, with the same figures as a table.
import { marginLine, type MarginSums } from '../../domain/margins.ts';
import { formatMilliShekels } from '../../domain/money.ts';
import { fmt } from '../console/i18n.ts';
import { html, jsonScript, table, type Html } from '../console/html.ts';
import type { AdminWords } from './i18n.ts';

/** The `count` months ending with `month` (YYYY-MM), oldest first. */
export function monthsTo(month: string, count: number): string[] {
  const [year, m] = month.split('-').map(Number);
  return Array.from({ length: count }, (_, i) => {
    const k = year * 12 + (m - 1) - (count - 1 - i);
    return `${Math.floor(k / 12)}-${String((k % 12) + 1).padStart(2, '0')}`;
  });
}

const shekels = (agorot: number) => Math.round(agorot) / 100;

export function marginsChart(
  w: AdminWords,
  o: { month: string; zone: string; months: string[]; starts: number[]; sums: MarginSums[]; creditMilli: number },
): Html {
  const lines = o.sums.map((s) => marginLine(s, o.creditMilli));
  const total = (pick: (l: (typeof lines)[number]) => number) =>
    formatMilliShekels(Math.round(lines.reduce((sum, l) => sum + pick(l), 0) * 1000));
  const data = {
    x: o.starts.map((s) => Math.round(s / 1000)),
    step: 'month',
    decimals: 2,
    series: [
      { label: w.marginsCharged, values: lines.map((l) => shekels(l.charged_agorot)), color: '#1d4f91' },
      { label: w.marginsCost, values: lines.map((l) => shekels(l.carrier_cost_agorot)), color: '#a4161a' },
      {
        label: w.marginsMargin,
        values: lines.map((l) => shekels(l.margin_agorot)),
        color: '#1e6b33',
        fill: 'rgba(30,107,51,0.08)',
      },
    ],
    timeZone: o.zone,
    labels: { time: fmt(w.marginsAxisMonth, { zone: o.zone }), count: w.marginsAxisShekels },
  };
  const label = fmt(w.marginsChartLabel, {
    month: o.month,
    charged: total((l) => l.charged_agorot),
    cost: total((l) => l.carrier_cost_agorot),
    margin: total((l) => l.margin_agorot),
  });
  const money = (agorot: number) => formatMilliShekels(Math.round(agorot * 1000));
  return html`<section class="card" aria-labelledby="margins-chart-title"><h2 id="margins-chart-title">${fmt(w.marginsChartTitle, { month: o.month })}</h2>
<figure><div id="margins-chart" class="chart" data-source="margins-data" role="img" aria-label="${label}"></div>
<figcaption class="muted">${w.marginsChartCaption}</figcaption></figure>
${jsonScript('margins-data', data)}
<details><summary>${w.chartAsTable}</summary>${table(
    w.chartAsTable,
    [w.marginsMonthColumn, w.marginsMessages, w.marginsCharged, w.marginsCost, w.marginsMargin],
    lines.map((l, i) => [
      o.months[i],
      String(l.messages),
      money(l.charged_agorot),
      money(l.carrier_cost_agorot),
      money(l.margin_agorot),
    ]),
    label,
  )}</details></section>`;
}
