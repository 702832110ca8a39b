// Operator alerts in the store (migration 0054): the thresholds, the operator's webhook, the alerts raised (open
// until cleared, so a restart or a new leader neither raises one again nor forgets it) and the webhook posts.
import { isFinalStatus } from '../domain/lifecycle.ts';
import { DELIVERY } from '../domain/status.ts';
import { isAlertKind, type AlertKind, type AlertRule, type CarrierOutcomes, type OpenAlert } from '../domain/alerts.ts';
import type { DeliveryStatus } from '../domain/status.ts';
import type { Queryable } from './engine/db.ts';

export async function listAlertRules(db: Queryable): Promise<AlertRule[]> {
  const rows = await db.selectFrom('alert_rules').select(['kind', 'percent', 'minutes']).orderBy('kind').execute();
  return rows
    .filter((r) => isAlertKind(r.kind))
    .map((r) => ({
      kind: r.kind as AlertKind,
      percent: r.percent === null ? null : Number(r.percent),
      minutes: Number(r.minutes),
    }));
}

export async function findAlertRule(db: Queryable, kind: string): Promise<AlertRule | undefined> {
  return (await listAlertRules(db)).find((r) => r.kind === kind);
}

/** Sets the rule of a kind (replacing the one before). */
export async function putAlertRule(db: Queryable, rule: AlertRule, now: number): Promise<void> {
  const values = { percent: rule.percent, minutes: rule.minutes, updated_at: now };
  await db
    .insertInto('alert_rules')
    .values({ kind: rule.kind, ...values })
    .onConflict((oc) => oc.column('kind').doUpdateSet(values))
    .execute();
}

export async function deleteAlertRule(db: Queryable, kind: string): Promise<void> {
  await db.deleteFrom('alert_rules').where('kind', '=', kind).execute();
}

/** The operator's webhook (its secret sealed), if set. */
export async function alertWebhook(db: Queryable): Promise<{ url: string; secret: string } | undefined> {
  return db.selectFrom('alert_webhook').select(['url', 'secret']).where('id', '=', 1).executeTakeFirst();
}

/** Sets the webhook (null removes it). */
export async function putAlertWebhook(
  db: Queryable,
  hook: { url: string; sealedSecret: string } | null,
  now: number,
): Promise<void> {
  if (!hook) {
    await db.deleteFrom('alert_webhook').where('id', '=', 1).execute();
    return;
  }
  const values = { url: hook.url, secret: hook.sealedSecret, updated_at: now };
  await db
    .insertInto('alert_webhook')
    .values({ id: 1, ...values })
    .onConflict((oc) => oc.column('id').doUpdateSet(values))
    .execute();
}

/** An alert as the console and the CLI show it. */
export interface AlertRecord {
  id: number;
  kind: string;
  subject: string;
  value: number;
  threshold: number;
  raisedAt: number;
  clearedAt: number | null;
}

const alertColumns = ['id', 'kind', 'subject', 'value', 'threshold', 'raised_at', 'cleared_at'] as const;
function record(r: {
  id: number;
  kind: string;
  subject: string;
  value: number;
  threshold: number;
  raised_at: number;
  cleared_at: number | null;
}): AlertRecord {
  return {
    id: Number(r.id),
    kind: r.kind,
    subject: r.subject,
    value: Number(r.value),
    threshold: Number(r.threshold),
    raisedAt: Number(r.raised_at),
    clearedAt: r.cleared_at === null ? null : Number(r.cleared_at),
  };
}

/** The alerts not cleared, oldest first. */
export async function activeAlerts(db: Queryable): Promise<AlertRecord[]> {
  const rows = await db
    .selectFrom('alerts')
    .select([...alertColumns])
    .where('cleared_at', 'is', null)
    .orderBy('raised_at')
    .orderBy('id')
    .execute();
  return rows.map(record);
}

/** The latest alerts, open or cleared, newest first. */
export async function recentAlerts(db: Queryable, limit = 50): Promise<AlertRecord[]> {
  const rows = await db
    .selectFrom('alerts')
    .select([...alertColumns])
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(record);
}

export function openAlerts(db: Queryable): Promise<OpenAlert[]> {
  return activeAlerts(db);
}

/**
 * Records an alert and its webhook post (when a webhook is set) unless one is open for the kind and subject
 * already; answers the new alert's id, or undefined when it was open.
 */
export async function recordRaise(
  db: Queryable,
  a: { kind: string; subject: string; value: number; threshold: number; at: number },
  body: (id: number) => string,
  post: boolean,
): Promise<number | undefined> {
  return db.transaction().execute(async (trx) => {
    const open = await trx
      .selectFrom('alerts')
      .select('id')
      .where('kind', '=', a.kind)
      .where('subject', '=', a.subject)
      .where('cleared_at', 'is', null)
      .executeTakeFirst();
    if (open) return undefined;
    const row = await trx
      .insertInto('alerts')
      .values({ kind: a.kind, subject: a.subject, value: a.value, threshold: a.threshold, raised_at: a.at })
      .returning('id')
      .executeTakeFirstOrThrow();
    const id = Number(row.id);
    if (post)
      await trx
        .insertInto('alert_posts')
        .values({ alert_id: id, event: 'alert.raised', body: body(id), next_attempt_at: a.at })
        .execute();
    return id;
  });
}

/** Clears an open alert and queues its post; false when it was cleared already. */
export async function recordClear(
  db: Queryable,
  id: number,
  value: number | null,
  at: number,
  body: string,
  post: boolean,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const done = await trx
      .updateTable('alerts')
      .set({ cleared_at: at, cleared_value: value })
      .where('id', '=', id)
      .where('cleared_at', 'is', null)
      .executeTakeFirst();
    if (Number(done.numUpdatedRows) === 0) return false;
    if (post)
      await trx
        .insertInto('alert_posts')
        .values({ alert_id: id, event: 'alert.cleared', body, next_attempt_at: at })
        .execute();
    return true;
  });
}

export async function findAlert(db: Queryable, id: number): Promise<AlertRecord | undefined> {
  const row = await db
    .selectFrom('alerts')
    .select([...alertColumns])
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? record(row) : undefined;
}

/** Webhook posts due now, oldest first. */
export async function dueAlertPosts(db: Queryable, now: number, limit = 20) {
  return db
    .selectFrom('alert_posts')
    .select(['id', 'event', 'body', 'attempts'])
    .where('sent_at', 'is', null)
    .where('next_attempt_at', '<=', now)
    .orderBy('id')
    .limit(limit)
    .execute();
}

export async function markAlertPostSent(db: Queryable, id: number, now: number): Promise<void> {
  await db.updateTable('alert_posts').set({ sent_at: now, last_error: null }).where('id', '=', id).execute();
}

export async function markAlertPostFailed(
  db: Queryable,
  id: number,
  attempts: number,
  nextAt: number,
  error: string,
): Promise<void> {
  await db
    .updateTable('alert_posts')
    .set({ attempts, next_attempt_at: nextAt, last_error: error.slice(0, 500) })
    .where('id', '=', id)
    .execute();
}

const DELIVERED = new Set<number>([DELIVERY.DELIVERED, DELIVERY.DELIVERED_LEGACY]);

/** Final outcomes per carrier of the messages submitted since `since`. */
export async function carrierOutcomesSince(db: Queryable, since: number): Promise<CarrierOutcomes[]> {
  const rows = await db
    .selectFrom('messages')
    .select(['carrier', 'status', (eb) => eb.fn.countAll<number>().as('n')])
    // By the index on submission time alone (migration 0058, which holds carrier and status too): a condition on
    // the carrier would let the embedded store's planner walk the carrier index over every message instead.
    .where('submitted_at', '>=', since)
    .where('status', 'is not', null)
    .groupBy(['carrier', 'status'])
    .execute();
  const by = new Map<string, CarrierOutcomes>();
  for (const r of rows) {
    const status = Number(r.status) as DeliveryStatus;
    if (r.carrier === null || !isFinalStatus(status)) continue;
    const carrier = r.carrier as string;
    const o = by.get(carrier) ?? { carrier, delivered: 0, final: 0 };
    o.final += Number(r.n);
    if (DELIVERED.has(status)) o.delivered += Number(r.n);
    by.set(carrier, o);
  }
  return [...by.values()];
}

/** Push URLs disabled after failures, as `USERNAME TYPE`. */
export async function disabledPushUrls(db: Queryable): Promise<string[]> {
  const rows = await db
    .selectFrom('push_registrations')
    .innerJoin('accounts', 'accounts.id', 'push_registrations.account_id')
    .select(['accounts.username', 'push_registrations.type'])
    .where('push_registrations.state', '=', 'disabled')
    .orderBy('accounts.username')
    .execute();
  return rows.map((r) => `${r.username} ${r.type}`);
}
