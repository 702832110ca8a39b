// /admin's health sections: the delivery rate per carrier over the last hour and the last 24 hours (of the messages
// each carrier took in the span, those with a final status), the queues (due now, waiting for a retry, and how
// long the oldest has waited), the push URLs failing or disabled, and the live nodes with their roles and their
// carriers' health as the nodes report it.
import {
  carrierOutcomesSince,
  dueQueue,
  failingPushUrlsOfAll,
  liveNodes,
  retryQueueByCarrier,
} from '../../store/read-models.ts';
import { num, percent, when } from '../console/format.ts';
import { fmt } from '../console/i18n.ts';
import { html, table, userText, type Html } from '../console/html.ts';
import { carrierHealthOf } from './carriers.ts';
import { dayOutcomes } from './dashboard-memo.ts';
import type { AdminWords } from './i18n.ts';
import type { AdminContext } from './router.ts';

const HOUR = 3600_000;

/** How long ago `since` was, in the largest whole unit (seconds, minutes, hours). */
export function age(w: AdminWords, now: number, since: number): string {
  const seconds = Math.max(0, Math.floor((now - since) / 1000));
  if (seconds < 120) return fmt(w.ageSeconds, { n: num(seconds) });
  if (seconds < 2 * 3600) return fmt(w.ageMinutes, { n: num(Math.floor(seconds / 60)) });
  return fmt(w.ageHours, { n: num(Math.floor(seconds / 3600)) });
}

export async function deliverySection(c: AdminContext): Promise<Html> {
  const { w } = c;
  const db = c.app.store.db;
  const hour = new Map((await carrierOutcomesSince(db, c.now - HOUR)).map((o) => [o.carrier, o]));
  const day = await dayOutcomes(db, c.now, 24 * HOUR);
  const rate = (o: { delivered: number; final: number } | undefined) =>
    o && o.final > 0 ? fmt(w.rateOf, { rate: percent(o.delivered, o.final), final: num(o.final) }) : '–';
  const rows = day
    .sort((a, b) => a.carrier.localeCompare(b.carrier))
    .map((o) => [o.carrier, rate(hour.get(o.carrier)), rate(o)]);
  return html`<section class="card" aria-labelledby="delivery"><h2 id="delivery">${w.deliveryTitle}</h2>
<p class="muted">${w.deliveryIntro}</p>${table(w.deliveryTitle, [w.carrier, w.lastHour, w.lastDay], rows, w.noOutcomes)}</section>`;
}

export async function queuesSection(c: AdminContext): Promise<Html> {
  const { w } = c;
  const db = c.app.store.db;
  const due = await dueQueue(db, c.now);
  const retries = await retryQueueByCarrier(db);
  const rows = [
    [w.queueDue, num(due.messages), due.oldestDueAt === undefined ? '–' : age(w, c.now, due.oldestDueAt)],
    ...retries
      .sort((a, b) => a.carrier.localeCompare(b.carrier))
      .map((r) => [fmt(w.queueRetries, { carrier: r.carrier }), num(r.messages), age(w, c.now, r.oldestAcceptedAt)]),
  ];
  return html`<section class="card" aria-labelledby="queues"><h2 id="queues">${w.queuesTitle}</h2>${table(
    w.queuesTitle,
    [w.queue, w.queueMessages, w.queueOldest],
    rows,
    '',
  )}</section>`;
}

export async function failingPushSection(c: AdminContext): Promise<Html> {
  const { w } = c;
  const zone = c.app.config.defaultTimeZone;
  const rows = (await failingPushUrlsOfAll(c.app.store.db)).map((p) => [
    html`<a href="/admin/accounts/${encodeURIComponent(p.username)}">${p.username}</a>`,
    p.type,
    userText(p.url, 'span', html` class="mono"`),
    p.disabled ? w.pushDisabled : fmt(w.pushFailing, { n: num(p.failures) }),
    when(p.lastFailureAt, zone),
  ]);
  return html`<section class="card" aria-labelledby="failing-push"><h2 id="failing-push">${w.failingPushTitle}</h2>${table(
    w.failingPushTitle,
    [w.account, w.pushFeed, w.pushUrl, w.pushState, w.pushLastFailure],
    rows,
    w.noFailingPush,
  )}</section>`;
}

export async function nodesSection(c: AdminContext): Promise<Html> {
  const { w } = c;
  const zone = c.app.config.defaultTimeZone;
  const nodes = await liveNodes(c.app.store.db, c.now);
  const nodeTable = table(
    w.nodesTitle,
    [w.node, w.roles, w.heartbeat],
    nodes.map((n) => [n.name, n.roles.join(', '), when(n.heartbeatAt, zone)]),
    w.noNodes,
  );
  const health = [...carrierHealthOf(nodes)].sort(([a], [b]) => a.localeCompare(b));
  const carrierTable = table(
    w.carriersTitle,
    [w.carrier, w.health, w.perSecond],
    health.map(([name, h]) => [name, h.up ? w.healthUp : w.healthDown, h.perSecond.toFixed(1)]),
    w.noCarriers,
  );
  return html`<section class="card" aria-labelledby="nodes"><h2 id="nodes">${w.nodesTitle}</h2>${nodeTable}</section>
<section class="card" aria-labelledby="carrier-health"><h2 id="carrier-health">${w.carriersTitle}</h2>${carrierTable}</section>`;
}
