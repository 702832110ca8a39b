// Push registrations and events. recordPushEvent is the one call every feed makes, inside the transaction
// that records the fact (receipt, inbound message, blocklist addition): it queues an event only when the
// account has a live registration of that type. Events of a disabled registration are kept, held until enable.
import { sql, type Selectable } from 'kysely';
import { DEFAULT_TIME_ZONE } from '../domain/dates.ts';
import { blacklistFields, isIntermediateDlrStatus, type PushFields } from '../domain/push-fields.ts';
import { sealAtRest } from '../domain/sealed.ts';
import { runPrepared, type Queryable } from './engine/db.ts';
import type { PushRegistrationTable, PushType } from './schema/push.ts';

/** A push_registrations row. */
export type PushRegistration = Selectable<PushRegistrationTable>;

/** next_attempt_at of events held for a disabled registration (never due until it is enabled). */
export const HELD = Number.MAX_SAFE_INTEGER;

/** One event to queue (see recordPushEvent). */
export interface PushEventInput {
  accountId: number;
  type: PushType;
  /** The form fields, in wire order (see domain/push-fields.ts). */
  fields: PushFields;
  /** Events with the same key (e.g. the message id of a dlr) are delivered one at a time, in order. */
  orderKey?: string | number | null;
  /** When the fact happened (epoch ms): created_at, and the start of receipt-to-push latency. */
  now: number;
}

interface LiveRegistration {
  id: number;
  state: string;
  retry_at: number;
}

const liveRegistrationQuery = (db: Queryable) =>
  db
    .selectFrom('push_registrations')
    .select(['id', 'state', 'retry_at'])
    .where('account_id', '=', 0)
    .where('type', '=', 'dlr')
    .where('state', '<>', 'deleted');

const finalForKeyQuery = (db: Queryable) =>
  db
    .selectFrom('push_events')
    .select('id')
    .where('registration_id', '=', 0)
    .where('order_key', '=', '')
    .where('is_final', '=', 1)
    .limit(1); // 4 parameters: limit too

/**
 * Queues one push event in the caller's transaction; returns its id, or null when the account has no
 * registration of that type (nothing stored). An intermediate dlr (status -1) recorded after a final one
 * of the same order key is stored as superseded and never pushed. Call signals.notify('push') after commit.
 */
export async function recordPushEvent(db: Queryable, event: PushEventInput): Promise<number | null> {
  const [id] = await recordPushEvents(db, [event]);
  return id ?? null;
}

/** recordPushEvent for many events at once (one registration lookup per account and type); ids in input order. */
export async function recordPushEvents(db: Queryable, events: PushEventInput[]): Promise<(number | null)[]> {
  const registrations = new Map<string, LiveRegistration | null>();
  const rows: { index: number; values: Parameters<typeof insertRows>[1][number] }[] = [];
  for (const [index, e] of events.entries()) {
    const cacheKey = `${e.accountId}:${e.type}`;
    let reg = registrations.get(cacheKey);
    if (reg === undefined) {
      [reg = null] = await runPrepared<LiveRegistration>(db, liveRegistrationQuery, [e.accountId, e.type, 'deleted']);
      registrations.set(cacheKey, reg);
    }
    if (!reg) continue;
    const orderKey = e.orderKey === undefined || e.orderKey === null || e.orderKey === '' ? null : String(e.orderKey);
    const isDlr = e.type === 'dlr' || e.type === 'dlr_whatsapp';
    const isFinal = isDlr ? (isIntermediateDlrStatus(e.fields.status ?? '') ? 0 : 1) : null;
    let state: 'pending' | 'superseded' = 'pending';
    if (isFinal === 0 && orderKey !== null) {
      const earlierFinal = rows.some(
        (r) => r.values.registration_id === reg!.id && r.values.order_key === orderKey && r.values.is_final === 1,
      );
      if (earlierFinal || (await runPrepared(db, finalForKeyQuery, [reg.id, orderKey, 1, 1])).length > 0)
        state = 'superseded';
    }
    rows.push({
      index,
      values: {
        registration_id: reg.id,
        account_id: e.accountId,
        type: e.type,
        payload: JSON.stringify(e.fields),
        order_key: orderKey,
        is_final: isFinal,
        state,
        attempts: 0,
        next_attempt_at: reg.state === 'disabled' ? HELD : Math.max(e.now, Number(reg.retry_at)),
        lease_until: null,
        created_at: e.now,
        delivered_at: null,
      },
    });
  }
  const ids: (number | null)[] = events.map(() => null);
  const inserted = await insertRows(
    db,
    rows.map((r) => r.values),
  );
  rows.forEach((r, i) => (ids[r.index] = inserted[i]));
  return ids;
}

/** Queues a `blacklist` push per newly blocked number (addToBlocklist calls it in its transaction). */
export async function recordBlocklistPushes(
  db: Queryable,
  accountId: number,
  phonesE164: string[],
  now: number,
): Promise<void> {
  if (phonesE164.length === 0) return;
  if ((await runPrepared(db, liveRegistrationQuery, [accountId, 'blacklist', 'deleted'])).length === 0) return;
  const account = await db.selectFrom('accounts').select('time_zone').where('id', '=', accountId).executeTakeFirst();
  const timeZone = account?.time_zone ?? DEFAULT_TIME_ZONE;
  await recordPushEvents(
    db,
    phonesE164.map((phone) => ({
      accountId,
      type: 'blacklist' as const,
      fields: blacklistFields({ dest: phone, date: now, timeZone }),
      now,
    })),
  );
}

type EventRow = {
  registration_id: number;
  account_id: number;
  type: PushType;
  payload: string;
  order_key: string | null;
  is_final: number | null;
  state: 'pending' | 'superseded';
  attempts: number;
  next_attempt_at: number;
  lease_until: null;
  created_at: number;
  delivered_at: null;
};

// Multi-row inserts of 500 (12 columns: well under SQLite's and PostgreSQL's parameter limits); ids in order.
async function insertRows(db: Queryable, rows: EventRow[]): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < rows.length; i += 500) {
    const part = await db
      .insertInto('push_events')
      .values(rows.slice(i, i + 500))
      .returning('id')
      .execute();
    ids.push(...part.map((r) => Number(r.id)));
  }
  return ids;
}

/** Registers a URL; returns the new id, or null when the account already has a live one for the type (517). */
export async function insertPushRegistration(
  db: Queryable,
  r: { accountId: number; type: PushType; url: string; now: number },
): Promise<number | null> {
  const row = await db
    .insertInto('push_registrations')
    .values({
      account_id: r.accountId,
      type: r.type,
      url: r.url,
      state: 'registered',
      consecutive_failures: 0,
      retry_at: 0,
      created_at: r.now,
    })
    .onConflict((oc) => oc.columns(['account_id', 'type']).where(sql<boolean>`state <> 'deleted'`).doNothing())
    .returning('id')
    .executeTakeFirst();
  return row ? Number(row.id) : null;
}

/** The account's live (registered or disabled) registration of a type, if any. */
export async function findPushRegistration(
  db: Queryable,
  accountId: number,
  type: PushType,
): Promise<PushRegistration | undefined> {
  return db
    .selectFrom('push_registrations')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('type', '=', type)
    .where('state', '<>', 'deleted')
    .executeTakeFirst();
}

/** Deletes the live registration of a type (its pending events become dead); false when there is none. */
export async function deletePushRegistration(
  db: Queryable,
  accountId: number,
  type: PushType,
  now: number,
): Promise<boolean> {
  const reg = await findPushRegistration(db, accountId, type);
  if (!reg) return false;
  await db
    .updateTable('push_registrations')
    .set({ state: 'deleted', deleted_at: now })
    .where('id', '=', reg.id)
    .execute();
  await db
    .updateTable('push_events')
    .set({ state: 'dead', lease_until: null })
    .where('registration_id', '=', reg.id)
    .where('state', '=', 'pending')
    .execute();
  return true;
}

/** Moves a disabled registration back to registered and releases its held events; reports what it found. */
export async function enablePushRegistration(
  db: Queryable,
  accountId: number,
  type: PushType,
  now: number,
): Promise<'enabled' | 'already-registered' | 'missing'> {
  const reg = await findPushRegistration(db, accountId, type);
  if (!reg) return 'missing';
  if (reg.state === 'registered') return 'already-registered';
  await db
    .updateTable('push_registrations')
    .set({ state: 'registered', consecutive_failures: 0, retry_at: 0, disabled_at: null, disabled_reason: null })
    .where('id', '=', reg.id)
    .execute();
  await db
    .updateTable('push_events')
    .set({ next_attempt_at: now, lease_until: null })
    .where('registration_id', '=', reg.id)
    .where('state', '=', 'pending')
    .execute();
  return 'enabled';
}

/** A registration as the status read shows it. */
export interface PushRegistrationStatus extends PushRegistration {
  pending_events: number;
  last_attempt: { at: number; http_status: number | null; latency_ms: number; error: string | null } | null;
}

/** The account's live registrations (optionally of one type) with pending counts and their last attempt. */
export async function listPushRegistrations(
  db: Queryable,
  accountId: number,
  type?: PushType,
): Promise<PushRegistrationStatus[]> {
  let query = db
    .selectFrom('push_registrations')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('state', '<>', 'deleted');
  if (type) query = query.where('type', '=', type);
  const regs = await query.orderBy('id').execute();
  const out: PushRegistrationStatus[] = [];
  for (const reg of regs) {
    const pending = await db
      .selectFrom('push_events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('registration_id', '=', reg.id)
      .where('state', '=', 'pending')
      .executeTakeFirstOrThrow();
    const last = await db
      .selectFrom('push_attempts')
      .select(['at', 'http_status', 'latency_ms', 'error'])
      .where('registration_id', '=', reg.id)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    out.push({ ...reg, pending_events: Number(pending.n), last_attempt: last ?? null });
  }
  return out;
}

/** The newest delivery attempts of a registration (the delivery log), newest first. */
export async function listPushAttempts(db: Queryable, registrationId: number, limit = 20) {
  return db
    .selectFrom('push_attempts')
    .selectAll()
    .where('registration_id', '=', registrationId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** Sets (or replaces) the account's signing secret, kept sealed with `key` (the secret key). */
export async function setPushSecret(
  db: Queryable,
  key: Buffer,
  accountId: number,
  clear: string,
  now: number,
): Promise<void> {
  const secret = sealAtRest(key, clear);
  await db
    .insertInto('push_secrets')
    .values({ account_id: accountId, secret, created_at: now })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ secret, created_at: now }))
    .execute();
}

/** Removes the account's signing secret (pushes go unsigned again); false when there was none. */
export async function clearPushSecret(db: Queryable, accountId: number): Promise<boolean> {
  const r = await db.deleteFrom('push_secrets').where('account_id', '=', accountId).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** True when the account signs its pushes. */
export async function hasPushSecret(db: Queryable, accountId: number): Promise<boolean> {
  return (
    (await db.selectFrom('push_secrets').select('id').where('account_id', '=', accountId).executeTakeFirst()) !==
    undefined
  );
}

/** Stops deliveries to the live registration of a type (held, as after failures) until it is enabled again. */
export async function disablePushRegistration(
  db: Queryable,
  accountId: number,
  type: PushType,
  reason: string,
  now: number,
): Promise<'disabled' | 'already-disabled' | 'missing'> {
  const reg = await findPushRegistration(db, accountId, type);
  if (!reg) return 'missing';
  if (reg.state === 'disabled') return 'already-disabled';
  await db
    .updateTable('push_registrations')
    .set({ state: 'disabled', disabled_at: now, disabled_reason: reason })
    .where('id', '=', reg.id)
    .execute();
  await db
    .updateTable('push_events')
    .set({ next_attempt_at: HELD })
    .where('registration_id', '=', reg.id)
    .where('state', '=', 'pending')
    .where('lease_until', 'is', null)
    .execute();
  return 'disabled';
}
