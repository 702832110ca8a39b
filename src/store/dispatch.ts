// The dispatcher's queries: claim due messages under a lease (FOR UPDATE SKIP LOCKED on PostgreSQL, the single
// writer on SQLite), suppress blocked recipients at dispatch, and record submit outcomes in one transaction.
// `next_attempt_at` is always "when this row next needs attention": queued -> due time, submitting -> lease
// expiry (an expired lease is claimed again), submitted -> end of the receipt window (the sweeper's 2).
import { sql } from 'kysely';
import { blockedAmong } from './blocklist.ts';
import { runPrepared, type Queryable } from './engine/db.ts';
import { dialectOf } from './engine/dialect.ts';
import { refundMessage, skipMessages } from './messages.ts';
import { recordStatusEvents, type StatusChange } from './status-events.ts';
import { addCarrierUsage } from './carrier-usage.ts';
import type { MessageState } from './schema/sending.ts';
import { storedChannelsOf } from '../domain/channels.ts';
import type { DeliveryStatus } from '../domain/status.ts';
import { LEASED_STATE, OPEN_STATES, nextState, type Standing } from '../domain/lifecycle.ts';

/** A message the dispatcher holds under a lease. */
export interface ClaimedMessage {
  id: number;
  account_id: number;
  campaign_id: number;
  external_id: string | null;
  phone: string;
  source: string;
  text: string;
  attempts: number;
  /** 1 for the priority lane's messages (one-time codes). */
  priority: number;
  /** The encrypted value of the text's `[code]`, if any. */
  sealed: string | null;
  /** 'sms' or 'call'; a call's `spoken` says how (JSON). */
  channel: string;
  spoken: string | null;
  /** A template payload's JSON (WhatsApp), null for a text. */
  template: string | null;
  /** When it was accepted: with the id, the row's key on PostgreSQL's monthly partitions. */
  created_at: number;
  /** Its SMS parts (what a carrier's daily cap and price count). */
  parts: number;
}

const CLAIM_COLUMNS = [
  'created_at',
  'id',
  'account_id',
  'campaign_id',
  'external_id',
  'phone',
  'source',
  'text',
  'attempts',
  'priority',
  'sealed',
  'channel',
  'spoken',
  'template',
  'parts',
] as const;
const CHUNK = 500;
// The dispatcher's outcomes as the lifecycle decides them for a message under lease (domain/lifecycle.ts).
const LEASED: Standing = { state: LEASED_STATE, status: null };
const ON_SUBMITTED = nextState(LEASED, { kind: 'submitted' })!;
const ON_RETRY = nextState(LEASED, { kind: 'retry' })!;
const ON_BLOCKED = nextState(LEASED, { kind: 'blocked' })!;

function chunks<T>(items: T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

// The embedded store's claim of the due ids it read (a JSON array: one statement whatever their number).
const claimByIds = (db: Queryable) =>
  db
    .updateTable('messages')
    .set({ state: LEASED_STATE, lease_until: 0, next_attempt_at: 0, attempts: sql`attempts + 1` })
    .where(sql<boolean>`id in (select value from json_each(${'[]'}))`)
    .returning([...CLAIM_COLUMNS]);
type ClaimRow = Awaited<ReturnType<ReturnType<typeof claimByIds>['execute']>>[number];

/** Which due messages a claim takes: texts, only the priority lane's texts, or calls (the voice lane's). */
export type ClaimScope = 'all' | 'priority' | 'call';

async function claimInState(
  db: Queryable,
  state: MessageState,
  now: number,
  leaseUntil: number,
  limit: number,
  scope: ClaimScope = 'all',
): Promise<ClaimedMessage[]> {
  const dialect = dialectOf(db);
  if (limit <= 0) return [];
  // Every kind is texted, voice sends (kind 'tts') too: their types 2 and 3 carry an SMS half, and call-only
  // sends (type 4) are refused until a voice worker exists.
  // The text lanes claim the rows of every channel the dispatcher role runs (domain/channels.ts), the call lane
  // the voice role's. The priority and call claims of queued messages spell their conditions as the partial indexes
  // messages_priority_queue and messages_call_queue do, so both stores look only at those indexes.
  const messages = db.selectFrom('messages');
  const due = (
    scope === 'priority'
      ? messages.where(sql<boolean>`state = 'queued' and priority > 0`)
      : scope === 'call' && state === 'queued'
        ? messages.where(sql<boolean>`state = 'queued' and channel = 'call'`)
        : messages
            .where('state', '=', state)
            .where('channel', 'in', storedChannelsOf(scope === 'call' ? 'voice' : 'dispatcher'))
  )
    .where('next_attempt_at', '<=', now)
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(limit);
  let rows: ClaimRow[];
  if (dialect === 'postgres') {
    // The rows are matched by (id, created_at), so each is looked up in its month's partition only.
    const claimed = sql<boolean>`(id, created_at) in (${due.select(['id', 'created_at']).forUpdate().skipLocked()})`;
    rows = await db
      .updateTable('messages')
      .set({ state: LEASED_STATE, lease_until: leaseUntil, next_attempt_at: leaseUntil, attempts: sql`attempts + 1` })
      .where(claimed)
      .returning([...CLAIM_COLUMNS])
      .execute();
  } else {
    // The embedded store has one writer, which holds the write lock for this transaction: the due ids are read
    // first and only found ones are updated. One UPDATE over `id in (subquery)` cost several times the read
    // even when nothing was due (its plan builds the subquery's list and a Bloom filter at every run), and
    // most claims find nothing: every lane claims at each wake-up.
    const ids = (await due.select('id').execute()).map((r) => Number(r.id));
    if (ids.length === 0) return [];
    rows = await runPrepared<ClaimRow>(db, claimByIds, [LEASED_STATE, leaseUntil, leaseUntil, JSON.stringify(ids)]);
  }
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    created_at: Number(r.created_at),
    account_id: Number(r.account_id),
    campaign_id: Number(r.campaign_id),
    attempts: Number(r.attempts),
    priority: Number(r.priority),
    parts: Number(r.parts),
  }));
}

/**
 * Claims up to `limit` due messages: first those whose lease expired (a crash or stall mid-flight), then
 * queued ones, oldest due first; with scope 'priority', only queued priority messages. Moves their campaigns
 * from queued to sending.
 */
export async function claimDueMessages(
  db: Queryable,
  now: number,
  leaseUntil: number,
  limit: number,
  scope: ClaimScope = 'all',
): Promise<ClaimedMessage[]> {
  const expired = scope !== 'priority' ? await claimInState(db, 'submitting', now, leaseUntil, limit, scope) : [];
  const queued = await claimInState(db, 'queued', now, leaseUntil, limit - expired.length, scope);
  const claimed = [...expired, ...queued].sort((a, b) => a.id - b.id);
  const campaigns = [...new Set(claimed.map((m) => m.campaign_id))];
  for (const part of chunks(campaigns)) {
    await db
      .updateTable('campaigns')
      .set({ state: 'sending' })
      .where('id', 'in', part)
      .where('state', '=', 'queued')
      .execute();
  }
  return claimed;
}

/** Skips (status 201) and refunds the claimed messages whose recipient the account blocked; returns the rest. */
export async function suppressBlocked(
  db: Queryable,
  claimed: ClaimedMessage[],
  now: number,
): Promise<ClaimedMessage[]> {
  const byAccount = new Map<number, ClaimedMessage[]>();
  for (const m of claimed) {
    const list = byAccount.get(m.account_id);
    if (list) list.push(m);
    else byAccount.set(m.account_id, [m]);
  }
  const blockedIds = new Set<number>();
  const changes: StatusChange[] = [];
  for (const [accountId, messages] of byAccount) {
    const blocked = await blockedAmong(
      db,
      accountId,
      messages.map((m) => m.phone),
    );
    if (blocked.size === 0) continue;
    for (const m of messages) {
      if (!blocked.has(m.phone)) continue;
      blockedIds.add(m.id);
      await refundMessage(db, m, ON_BLOCKED.refund!, now);
      changes.push(statusChange(m, ON_BLOCKED.status!, null, now));
    }
  }
  if (blockedIds.size === 0) return claimed;
  await skipMessages(db, [...blockedIds], ON_BLOCKED.status!, 'blocked', now);
  await db
    .updateTable('messages')
    .set({ lease_until: null })
    .where('id', 'in', [...blockedIds])
    .execute();
  await recordStatusEvents(db, changes, now);
  return claimed.filter((m) => !blockedIds.has(m.id));
}

function statusChange(m: ClaimedMessage, status: DeliveryStatus, carrier: string | null, at: number): StatusChange {
  return {
    messageId: m.id,
    accountId: m.account_id,
    campaignId: m.campaign_id,
    externalId: m.external_id,
    phone: m.phone,
    carrier,
    status,
    at,
    channel: m.channel,
  };
}

/** Makes every claimed message due at once (a single process starting: no claimer of them is left); returns how many. */
export async function reclaimAbandonedClaims(db: Queryable): Promise<number> {
  const res = await db
    .updateTable('messages')
    .set({ next_attempt_at: 0 })
    .where('state', '=', 'submitting')
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/**
 * Moves the lease of claimed messages still held under `leaseUntil` to `renewedUntil` (a batch still submitting);
 * returns the ids it moved. A message missing from the answer is no longer the caller's: another claimer took it
 * after the lease lapsed, or it left 'submitting'.
 */
export async function renewLease(
  db: Queryable,
  ids: number[],
  leaseUntil: number,
  renewedUntil: number,
): Promise<number[]> {
  const renewed: number[] = [];
  for (const part of chunks(ids)) {
    const rows = await db
      .updateTable('messages')
      .set({ lease_until: renewedUntil, next_attempt_at: renewedUntil })
      .where('id', 'in', part)
      .where('state', '=', 'submitting')
      .where('lease_until', '=', leaseUntil)
      .returning('id')
      .execute();
    for (const r of rows) renewed.push(Number(r.id));
  }
  return renewed;
}

type CarrierIdRow = {
  carrier: string;
  carrier_message_id: string;
  message_id: number;
  part_index: number;
  part_status: null;
  created_at: number;
};

// Records which message (and part) carrier ids belong to; an id the carrier gives again points at the new one.
// On PostgreSQL the table is partitioned by month and its key holds created_at (migration 0019), so the older
// row of a reused id is removed first instead of being updated in place.
async function insertCarrierIds(db: Queryable, rows: CarrierIdRow[]): Promise<void> {
  const dialect = dialectOf(db);
  const latest = [...new Map(rows.map((r) => [`${r.carrier}\u0000${r.carrier_message_id}`, r])).values()];
  for (const part of chunks(latest, 400)) {
    if (dialect === 'postgres') {
      for (const carrier of new Set(part.map((r) => r.carrier))) {
        const ids = part.filter((r) => r.carrier === carrier).map((r) => r.carrier_message_id);
        await db
          .deleteFrom('carrier_message_ids')
          .where('carrier', '=', carrier)
          .where('carrier_message_id', 'in', ids)
          .execute();
      }
      await db.insertInto('carrier_message_ids').values(part).execute();
      continue;
    }
    await db
      .insertInto('carrier_message_ids')
      .values(part)
      .onConflict((oc) =>
        oc.columns(['carrier', 'carrier_message_id']).doUpdateSet((eb) => ({
          message_id: eb.ref('excluded.message_id'),
          part_index: eb.ref('excluded.part_index'),
          part_status: null,
          created_at: eb.ref('excluded.created_at'),
        })),
      )
      .execute();
  }
}

/**
 * Records the carrier id of a part whose submit_sm_resp came after we gave up waiting (the message was queued
 * again): the carrier did take that copy, and its receipt must find the message.
 */
export async function recordLateCarrierId(
  db: Queryable,
  carrier: string,
  messageId: number,
  partIndex: number,
  carrierMessageId: string,
  now: number,
): Promise<void> {
  await insertCarrierIds(db, [
    {
      carrier,
      carrier_message_id: carrierMessageId,
      message_id: messageId,
      part_index: partIndex,
      part_status: null,
      created_at: now,
    },
  ]);
}

/** What became of one claimed message. */
export type DispatchOutcome =
  | {
      kind: 'submitted';
      message: ClaimedMessage;
      carrier: string;
      carrierMessageIds: string[];
      /** The carrier's day its parts count in (carrier_daily_usage); not counted when absent. */
      day?: string;
      /** What the carrier charges for it, thousandths of an agora (messages.carrier_cost). */
      carrierCost?: number;
    }
  | {
      kind: 'retry';
      message: ClaimedMessage;
      carrier: string | null;
      at: number;
      error: string;
      /** The attempt is given back (the message only waited, e.g. for a carrier's daily cap). */
      uncounted?: boolean;
    }
  | {
      kind: 'failed';
      message: ClaimedMessage;
      carrier: string | null;
      status: DeliveryStatus;
      error: string;
      /** The carrier's own code for the failure (Meta's error code), kept in messages.carrier_error. */
      carrierError?: string;
    };

/**
 * Records a batch's outcomes under the lease it was claimed with (rows whose lease was lost to another
 * claimer are left alone): submitted (status -1, deadline = end of the receipt window, carrier ids kept per
 * part), back to queued for a retry, or failed (refunded, with a failure status and its dlr event).
 */
export async function recordOutcomes(
  db: Queryable,
  outcomes: DispatchOutcome[],
  leaseUntil: number,
  now: number,
  receiptWindowMs: number,
): Promise<void> {
  const submittedBy = new Map<string, { carrier: string; cost: number | null; ids: number[] }>();
  const usage = new Map<string, Map<string, number>>();
  const idRows: CarrierIdRow[] = [];
  const retries = new Map<
    string,
    { at: number; carrier: string | null; error: string; uncounted: boolean; ids: number[] }
  >();
  const failures: Array<Extract<DispatchOutcome, { kind: 'failed' }>> = [];
  for (const o of outcomes) {
    if (o.kind === 'submitted') {
      const cost = o.carrierCost ?? null;
      const key = `${o.carrier}\u0000${cost}`;
      const group = submittedBy.get(key) ?? { carrier: o.carrier, cost, ids: [] };
      group.ids.push(o.message.id);
      submittedBy.set(key, group);
      if (o.day !== undefined) {
        const day = usage.get(o.day) ?? new Map<string, number>();
        day.set(o.carrier, (day.get(o.carrier) ?? 0) + o.message.parts);
        usage.set(o.day, day);
      }
      o.carrierMessageIds.forEach((cid, part) =>
        idRows.push({
          carrier: o.carrier,
          carrier_message_id: cid,
          message_id: o.message.id,
          part_index: part,
          part_status: null,
          created_at: now,
        }),
      );
    } else if (o.kind === 'retry') {
      const key = `${o.at}|${o.carrier}|${o.error}|${o.uncounted === true}`;
      const group = retries.get(key) ?? {
        at: o.at,
        carrier: o.carrier,
        error: o.error,
        uncounted: o.uncounted === true,
        ids: [],
      };
      group.ids.push(o.message.id);
      retries.set(key, group);
    } else {
      failures.push(o);
    }
  }
  // The batch's span of acceptance times keeps PostgreSQL to the months holding it.
  const accepted = outcomes.map((o) => o.message.created_at);
  const [since, until] = [Math.min(...accepted), Math.max(...accepted)];
  const held = (ids: number[]) =>
    db
      .updateTable('messages')
      .where('id', 'in', ids)
      .where('created_at', '>=', since)
      .where('created_at', '<=', until)
      .where('state', '=', LEASED_STATE)
      .where('lease_until', '=', leaseUntil);
  for (const { carrier, cost, ids } of submittedBy.values()) {
    for (const part of chunks(ids)) {
      await held(part)
        .set({
          state: ON_SUBMITTED.state,
          status: ON_SUBMITTED.status,
          status_at: now,
          submitted_at: now,
          carrier,
          lease_until: null,
          error: null,
          next_attempt_at: now + receiptWindowMs,
          sealed: null,
          carrier_cost: cost,
        })
        .execute();
    }
  }
  await insertCarrierIds(db, idRows);
  for (const group of retries.values()) {
    for (const part of chunks(group.ids)) {
      await held(part)
        .set({
          state: ON_RETRY.state,
          next_attempt_at: group.at,
          lease_until: null,
          error: group.error,
          carrier: group.carrier,
          ...(group.uncounted ? { attempts: sql`attempts - 1` } : {}),
        })
        .execute();
    }
  }
  const changes: StatusChange[] = [];
  for (const f of failures) {
    const failed = nextState(LEASED, { kind: 'failed', status: f.status })!;
    const res = await held([f.message.id])
      .set({
        state: failed.state,
        status: failed.status,
        status_at: now,
        carrier: f.carrier,
        lease_until: null,
        error: f.error,
        sealed: null,
        ...(f.carrierError ? { carrier_error: f.carrierError } : {}),
      })
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) continue;
    if (failed.refund !== null) await refundMessage(db, f.message, failed.refund, now);
    changes.push(statusChange(f.message, f.status, f.carrier, now));
  }
  await recordStatusEvents(db, changes, now);
  // Last: the count rows are shared by every recorder of the carrier, so they are held for the shortest time.
  for (const day of [...usage.keys()].sort()) await addCarrierUsage(db, day, usage.get(day)!);
}

/**
 * Marks finished every campaign among `campaignIds` with no message left scheduled, queued or submitting;
 * returns those it marked, with their recipient counts.
 * On PostgreSQL the campaign row is locked first: two lanes finishing the last batches of one campaign at once
 * would each still see the other's messages submitting, and neither would mark it sent.
 */
export async function finishCampaigns(
  db: Queryable,
  campaignIds: number[],
  now: number,
): Promise<{ id: number; recipients: number }[]> {
  const dialect = dialectOf(db);
  const finished: { id: number; recipients: number }[] = [];
  const ids = [...new Set(campaignIds)].sort((a, b) => a - b);
  // Three statements per group of campaigns, not per campaign (single-recipient sends are a campaign each).
  for (let i = 0; i < ids.length; i += FINISH_CHUNK) {
    const part = ids.slice(i, i + FINISH_CHUNK);
    if (dialect === 'postgres')
      await db.selectFrom('campaigns').select('id').where('id', 'in', part).orderBy('id').forUpdate().execute();
    const open = await db
      .selectFrom('messages')
      .select('campaign_id')
      .distinct()
      .where('campaign_id', 'in', part)
      .where('state', 'in', OPEN_STATES)
      .execute();
    const stillOpen = new Set(open.map((r) => Number(r.campaign_id)));
    const done = part.filter((id) => !stillOpen.has(id));
    if (done.length === 0) continue;
    const marked = await db
      .updateTable('campaigns')
      .set({ state: 'sent', finished_at: now })
      .where('id', 'in', done)
      .where('state', 'in', ['queued', 'sending'])
      .returning(['id', 'recipients'])
      .execute();
    for (const m of marked) finished.push({ id: Number(m.id), recipients: Number(m.recipients) });
  }
  return finished.sort((a, b) => a.id - b.id);
}

const FINISH_CHUNK = 500;
