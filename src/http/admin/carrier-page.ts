// /admin/carriers/NAME: one carrier's health. Now: what each live node reports of it with its heartbeat (binds up,
// window, throttling, down since when, its last error, messages waiting for it), as `yona admin carriers --status`
// reads it. Over time: the messages it took in the last hour or day, delivered, failed and pending per bucket,
// drawn by the console's chart (assets/chart.js, uPlot) with the same figures as a table.
import {
  carrierTimeline,
  type CarrierTimelinePoint,
  listCarriers,
  listRoutes,
  liveNodes,
} from '../../store/read-models.ts';
import { num, when } from '../console/format.ts';
import { html, jsonScript, table, type Html } from '../console/html.ts';
import { fmt } from '../console/i18n.ts';
import type { AdminContext, AdminRouter } from './router.ts';

/** What a node reports of one carrier (cluster/node.ts heartbeats, delivery/carrier-health.ts). */
interface NodeCarrierHealth {
  carrier: string;
  canSubmit?: boolean;
  bindsUp?: number;
  bindsWanted?: number;
  windowInUse?: number;
  windowSize?: number;
  throttled?: boolean;
  down?: boolean;
  downSince?: number;
  lastError?: { text: string; at: number };
  held?: number;
  submitsPerSecond?: number;
}

const SPANS = {
  hour: { ms: 3_600_000, bucketMs: 60_000 },
  day: { ms: 86_400_000, bucketMs: 1_800_000 },
} as const;

function reportsOf(nodes: Awaited<ReturnType<typeof liveNodes>>, carrier: string) {
  return nodes.flatMap((node) => {
    try {
      const carriers = (JSON.parse(node.carrierHealth ?? '{}') as { carriers?: NodeCarrierHealth[] }).carriers ?? [];
      return carriers.filter((h) => h.carrier === carrier).map((h) => ({ node: node.name, h }));
    } catch {
      return [];
    }
  });
}

function chart(c: AdminContext, points: CarrierTimelinePoint[], bucketMs: number): Html {
  const { w } = c;
  const zone = c.app.config.defaultTimeZone;
  const delivered = points.reduce((n, p) => n + p.delivered, 0);
  const failed = points.reduce((n, p) => n + p.failed, 0);
  const data = {
    x: points.map((p) => Math.round(p.at / 1000)),
    delivered: points.map((p) => p.delivered),
    failed: points.map((p) => p.failed),
    timeZone: zone,
    labels: {
      time: fmt(w.chartAxisTime, { zone }),
      count: w.chartAxisCount,
      delivered: w.chartDelivered,
      failed: w.chartFailed,
    },
  };
  const busy = points.filter((p) => p.delivered + p.failed + p.pending > 0);
  return html`<figure>
<div id="chart" class="chart" role="img" aria-label="${fmt(w.chartLabel, { delivered: num(delivered), failed: num(failed) })}"></div>
<figcaption class="muted">${fmt(w.chartCaption, { minutes: num(bucketMs / 60_000) })}</figcaption></figure>
${jsonScript('chart-data', data)}
<details><summary>${w.chartTable}</summary>${table(
    w.chartTable,
    [w.chartFrom, w.chartDelivered, w.chartFailed, w.chartPending],
    busy.map((p) => [when(p.at, zone), num(p.delivered), num(p.failed), num(p.pending)]),
    w.noMessages,
  )}</details>`;
}

export function registerAdminCarrierPage(r: AdminRouter): void {
  r.get('/admin/carriers/:name', async (c) => {
    const { w } = c;
    const db = c.app.store.db;
    const name = c.params.name ?? '';
    const carrier = (await listCarriers(db)).find((k) => k.name === name);
    if (!carrier)
      return c.render(w.carriersTitle, html`<p><a href="/admin/carriers">${w.carriersTitle}</a></p>`, {
        code: 404,
        notice: { kind: 'error', text: w.noSuchCarrier },
      });
    const zone = c.app.config.defaultTimeZone;
    const yesNo = (b: boolean | undefined) => (b ? w.yes : w.no);
    const live = table(
      w.carrierLiveTitle,
      [w.node, w.health, w.bindsUp, w.windowInUse, w.throttled, w.downSince, w.lastError, w.heldMessages],
      reportsOf(await liveNodes(db, c.now), name).map(({ node, h }) => [
        node,
        h.canSubmit === true && h.down !== true ? w.healthUp : w.healthDown,
        `${num(h.bindsUp ?? 0)} / ${num(h.bindsWanted ?? 0)}`,
        `${num(h.windowInUse ?? 0)} / ${num(h.windowSize ?? 0)}`,
        yesNo(h.throttled),
        h.down && h.downSince ? when(h.downSince, zone) : '',
        h.lastError ? html`<span dir="ltr">${h.lastError.text}</span> (${when(h.lastError.at, zone)})` : '',
        num(h.held ?? 0),
      ]),
      w.healthUnknown,
    );
    const over = c.query.over === 'day' ? 'day' : 'hour';
    const span = SPANS[over];
    const until = (Math.floor(c.now / span.bucketMs) + 1) * span.bucketMs;
    const points = await carrierTimeline(db, name, until - span.ms, until, span.bucketMs);
    const path = `/admin/carriers/${encodeURIComponent(name)}`;
    const spans = html`<nav class="pager" aria-label="${w.carrierChartTitle}">${(['hour', 'day'] as const).map((s) =>
      s === over
        ? html`<span aria-current="page">${s === 'hour' ? w.carrierLastHour : w.carrierLastDay}</span>`
        : html`<a href="${path}?over=${s}">${s === 'hour' ? w.carrierLastHour : w.carrierLastDay}</a>`,
    )}</nav>`;
    const routes = (await listRoutes(db)).filter((route) =>
      route.carrier.split(',').some((k) => k.split(':')[0].trim() === name),
    );
    const routeList = table(
      w.carrierRoutes,
      [w.prefixShort, w.carriersInOrder, w.account, w.sender, w.channel],
      routes.map((route) => [
        html`<span dir="ltr">${route.prefix === '' ? w.defaultRoute : route.prefix}</span>`,
        html`<span dir="ltr">${route.carrier.split(',').join(' → ')}</span>`,
        route.account,
        route.source,
        route.channel,
      ]),
      w.noRoutes,
    );
    const body = html`<p>${w.protocol}: <span dir="ltr">${carrier.protocol}</span></p>
<h2>${w.carrierLiveTitle}</h2>${live}
<h2>${w.carrierChartTitle}</h2>${spans}${chart(c, points, span.bucketMs)}
<h2>${w.carrierRoutes}</h2>${routeList}
<p><a href="/admin/carriers">${w.carriersTitle}</a></p>`;
    return c.render(fmt(w.carrierPageTitle, { name }), body, {
      scripts: ['uPlot.iife.min.js', 'chart.js'],
      styles: ['uPlot.min.css'],
    });
  });
}
