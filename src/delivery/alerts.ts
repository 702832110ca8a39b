// The operator's alerts, evaluated on the node leading the scheduler (cli/serve.ts) every YONA_ALERT_INTERVAL_MS:
// the figures (delivery outcomes per carrier, the carriers' health as the live nodes report it, the due queue,
// disabled push URLs) against the thresholds in the store. A crossing is logged (`alert.raised`), recorded open in
// the store and queued for the operator's webhook; its recovery likewise (`alert.cleared`). Open alerts live in the
// store, so a restart or another leader neither raises them again nor forgets them. Webhook posts are signed as
// customer pushes are (domain/push-sign.ts) and retried with a growing delay until the webhook answers 2xx.
import type { Component, ComponentHost } from '../component.ts';
import { alertChanges, alertPostBody, observe, type CarrierState } from '../domain/alerts.ts';
import { openAtRest } from '../domain/sealed.ts';
import { signPush } from '../domain/push-sign.ts';
import { sealingKey } from '../secret-key.ts';
import {
  alertWebhook,
  carrierOutcomesSince,
  disabledPushUrls,
  dueAlertPosts,
  findAlert,
  listAlertRules,
  markAlertPostFailed,
  markAlertPostSent,
  openAlerts,
  recordClear,
  recordRaise,
} from '../store/alerts.ts';
import { dueQueue } from '../store/carrier-queue.ts';
import { liveNodes, type NodeRecord } from '../store/nodes.ts';

/** The longest wait between two tries of a webhook post. */
const MAX_RETRY_MS = 600_000;
const POST_TIMEOUT_MS = 10_000;

interface ReportedCarrier {
  carrier: string;
  canSubmit?: boolean;
  down?: boolean;
  downSince?: number;
}

/** Each carrier the live nodes report: up when one of them can submit to it, else down since the latest went down. */
export function carrierStates(nodes: NodeRecord[]): CarrierState[] {
  const by = new Map<string, CarrierState>();
  for (const node of nodes) {
    let reported: ReportedCarrier[] = [];
    try {
      reported = (JSON.parse(node.carrierHealth ?? '{}') as { carriers?: ReportedCarrier[] }).carriers ?? [];
    } catch {
      reported = [];
    }
    for (const h of reported) {
      const was = by.get(h.carrier);
      const up = h.canSubmit === true && h.down !== true;
      if (up || was?.up) {
        by.set(h.carrier, { carrier: h.carrier, up: true });
        continue;
      }
      const since = h.downSince;
      const downSince =
        was?.downSince === undefined ? since : since === undefined ? was.downSince : Math.max(was.downSince, since);
      by.set(h.carrier, { carrier: h.carrier, up: false, ...(downSince !== undefined ? { downSince } : {}) });
    }
  }
  return [...by.values()];
}

/** One evaluation: raises and clears as the figures say. */
export async function evaluateAlerts(s: ComponentHost): Promise<void> {
  const db = s.store.db;
  const now = s.clock();
  const minuteMs = s.config.alerts.minuteMs;
  const rules = await listAlertRules(db);
  const open = await openAlerts(db);
  if (rules.length === 0 && open.length === 0) return;
  const rate = rules.find((r) => r.kind === 'delivery-rate');
  const due = rules.some((r) => r.kind === 'queue-age') ? await dueQueue(db, now) : undefined;
  const observations = observe(rules, {
    now,
    minuteMs,
    outcomes: rate ? await carrierOutcomesSince(db, now - rate.minutes * minuteMs) : [],
    carriers: rules.some((r) => r.kind === 'carrier-down') ? carrierStates(await liveNodes(db, now)) : [],
    ...(due?.oldestDueAt !== undefined ? { oldestDueAt: due.oldestDueAt } : {}),
    disabledPush: rules.some((r) => r.kind === 'push-disabled') ? await disabledPushUrls(db) : [],
  });
  const { raise, clear } = alertChanges(rules, observations, open);
  const post = (await alertWebhook(db)) !== undefined;
  for (const o of raise) {
    const id = await recordRaise(
      db,
      { kind: o.kind, subject: o.subject, value: o.value, threshold: o.threshold, at: now },
      (id) => alertPostBody('alert.raised', { ...o, id, raisedAt: now }, now),
      post,
    );
    if (id !== undefined)
      s.logger.warn(
        { event: 'alert.raised', alert: id, kind: o.kind, subject: o.subject, value: o.value, threshold: o.threshold },
        'alert raised',
      );
  }
  for (const { alert, value } of clear) {
    const a = await findAlert(db, alert.id);
    if (!a) continue;
    const body = alertPostBody('alert.cleared', { ...a, value }, now);
    if (await recordClear(db, alert.id, value, now, body, post))
      s.logger.info(
        { event: 'alert.cleared', alert: a.id, kind: a.kind, subject: a.subject, value, threshold: a.threshold },
        'alert cleared',
      );
  }
}

/** Posts the queued raises and clears to the operator's webhook, signed; a failure waits longer each time. */
export async function postAlerts(s: ComponentHost): Promise<void> {
  const db = s.store.db;
  const hook = await alertWebhook(db);
  if (!hook) return;
  const secret = openAtRest(sealingKey(s.config), hook.secret);
  for (const p of await dueAlertPosts(db, s.clock())) {
    const timestamp = Math.floor(s.clock() / 1000);
    let error: string | undefined;
    try {
      const res = await fetch(hook.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-yona-event': p.event,
          'x-yona-timestamp': String(timestamp),
          'x-yona-signature': signPush(secret, timestamp, p.body),
        },
        body: p.body,
        signal: AbortSignal.timeout(POST_TIMEOUT_MS),
      });
      await res.arrayBuffer().catch(() => undefined);
      if (res.status < 200 || res.status > 299) error = `HTTP ${res.status}`;
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    if (error === undefined) {
      await markAlertPostSent(db, Number(p.id), s.clock());
      continue;
    }
    const attempts = Number(p.attempts) + 1;
    const wait = Math.min(MAX_RETRY_MS, s.config.alerts.intervalMs * 2 ** Math.min(attempts - 1, 16));
    await markAlertPostFailed(db, Number(p.id), attempts, s.clock() + wait, error);
    s.logger.warn({ event: 'alert.post_failed', post: Number(p.id), attempts, error }, 'alert webhook post failed');
  }
}

/** The evaluator as a component (run under the scheduler's lease). */
export function alertsComponent(): Component {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let service: ComponentHost | undefined;

  const run = (): void => {
    const s = service;
    if (!s || running) return;
    running = (async () => {
      try {
        await evaluateAlerts(s);
      } catch (err) {
        s.logger.error({ err }, 'alerts: evaluation failed');
      }
      try {
        await postAlerts(s);
      } catch (err) {
        s.logger.error({ err }, 'alerts: posting to the webhook failed');
      }
    })().finally(() => (running = undefined));
  };

  return {
    name: 'alerts',
    async start(s) {
      service = s;
      timer = setInterval(run, s.config.alerts.intervalMs);
      timer.unref();
      run();
    },
    async stop() {
      service = undefined;
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
