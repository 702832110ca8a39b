// Applying delivery receipts in batches: match by carrier message id (unknown ids wait in pending_receipts),
// keep each part's status, and write the message's status as the lifecycle (domain/lifecycle.ts) derives it
// from its parts, with a `dlr` push event for every change in the same transaction. Also the receipt-window
// sweeper (status 2).
// Part statuses are stored (carrier_message_ids.part_status) for messages of several parts; for a one-part
// message the message's own status is its part's status.
// A message's parts are the submit_sm it was submitted in (its carrier ids): messages.parts for UDH parts, one
// for a carrier taking long messages in message_payload.
import { CompiledQuery } from 'kysely';
import type { Queryable } from './engine/db.ts';
import { dialectOf } from './engine/dialect.ts';
import { followFilteredHandsets } from './filtered-followup.ts';
import { refundMessage } from './messages.ts';
import {
  loadMessagesForUpdate,
  recordStatusEvents,
  updateMessageStatuses,
  type MessageForUpdate,
  type StatusChange,
} from './status-events.ts';
import { DELIVERY, type DeliveryStatus } from '../domain/status.ts';
import {
  AWAITING_RECEIPTS_STATE,
  betterPartStatus,
  mergePartStatus,
  nextState,
  receiptStatusRefund,
  receiptRefund,
  type LifecycleEvent,
  type LifecycleState,
} from '../domain/lifecycle.ts';

/** Re-exported for callers that record status changes along with receipts. */
export { recordStatusEvents, type StatusChange } from './status-events.ts';

/** A receipt as the carrier gave it (with our delivery status), tagged with the carrier it came from. */
export interface IncomingReceipt {
  carrier: string;
  carrierMessageId: string;
  status: DeliveryStatus;
  at: number;
  /** The carrier never took the message: its cost is refunded (once) along with the status. */
  refund?: boolean;
  /** An answered call's playing time, kept on the message for its reports. */
  durationMs?: number;
  /** The carrier's own code for a failure (Meta's error code), kept on the message. */
  carrierError?: string;
  /** The carrier did not carry it for now (throttled): the message goes back to the queue. */
  sendAgain?: boolean;
}

/** How long a message a carrier throttled after taking it waits before it is sent again (plus up to as much). */
export const SEND_AGAIN_MS = 2000;

const CHUNK = 400;
// The receipt-window sweeper's change, as the lifecycle decides it for a message awaiting receipts.
const WINDOW_ENDED = nextState({ state: AWAITING_RECEIPTS_STATE, status: null }, { kind: 'window-ended' })!;

interface PartRow {
  carrier: string;
  carrier_message_id: string;
  message_id: number;
  part_index: number;
  part_status: DeliveryStatus | null;
}

type ApplyResult = { matched: number; pending: number; changed: number; followUpCalls?: number; sentAgain?: number };

/**
 * Applies a batch of receipts in the caller's transaction; returns how many matched and how many wait. Receipts of
 * one carrier message id in one batch (a WhatsApp message's delivered and read arriving together) are applied one
 * after the other, in the order they came, so that each status change is recorded and pushed, not only the last.
 */
export async function applyReceipts(
  db: Queryable,
  receipts: IncomingReceipt[],
  now: number,
  /** Told the messages whose status changed, with their carrier and new status. */
  onChanges?: (changes: StatusChange[]) => void,
): Promise<ApplyResult> {
  const rounds = roundsOf(receipts);
  if (rounds.length === 1) return applyRound(db, receipts, now, onChanges);
  const total: ApplyResult = { matched: 0, pending: 0, changed: 0 };
  const changes: StatusChange[] = [];
  for (const round of rounds) {
    const r = await applyRound(db, round, now, (c) => changes.push(...c));
    total.matched += r.matched;
    total.pending += r.pending;
    total.changed += r.changed;
    if (r.followUpCalls) total.followUpCalls = (total.followUpCalls ?? 0) + r.followUpCalls;
    if (r.sentAgain) total.sentAgain = (total.sentAgain ?? 0) + r.sentAgain;
  }
  onChanges?.(changes);
  return total;
}

// The batch as rounds in which each carrier message id comes once: round k holds the k-th receipt of each.
function roundsOf(receipts: IncomingReceipt[]): IncomingReceipt[][] {
  const seen = new Map<string, number>();
  const rounds: IncomingReceipt[][] = [];
  for (const r of receipts) {
    const key = `${r.carrier}\u0000${r.carrierMessageId}`;
    const k = seen.get(key) ?? 0;
    seen.set(key, k + 1);
    (rounds[k] ??= []).push(r);
  }
  return rounds.length === 0 ? [receipts] : rounds;
}

async function applyRound(
  db: Queryable,
  receipts: IncomingReceipt[],
  now: number,
  onChanges?: (changes: StatusChange[]) => void,
): Promise<ApplyResult> {
  const parts = new Map<string, PartRow>();
  const byCarrier = new Map<string, string[]>();
  for (const r of receipts) {
    const list = byCarrier.get(r.carrier) ?? [];
    list.push(r.carrierMessageId);
    byCarrier.set(r.carrier, list);
  }
  for (const [carrier, ids] of byCarrier) {
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += CHUNK) {
      const rows = await db
        .selectFrom('carrier_message_ids')
        .select(['carrier', 'carrier_message_id', 'message_id', 'part_index', 'part_status'])
        .where('carrier', '=', carrier)
        .where('carrier_message_id', 'in', unique.slice(i, i + CHUNK))
        .execute();
      for (const row of rows)
        parts.set(`${row.carrier}\u0000${row.carrier_message_id}`, { ...row, message_id: Number(row.message_id) });
    }
  }
  const unmatched: IncomingReceipt[] = [];
  const changedParts = new Map<string, PartRow>();
  const again: number[] = [];
  for (const r of receipts) {
    const key = `${r.carrier}\u0000${r.carrierMessageId}`;
    const part = parts.get(key);
    if (!part) {
      if (!r.sendAgain) unmatched.push(r);
      continue;
    }
    if (r.sendAgain) {
      again.push(part.message_id);
      continue;
    }
    const refund = receiptRefund(r);
    if (refund !== null) await refundMessage(db, { id: part.message_id }, refund, now);
    if (r.durationMs !== undefined) {
      await db
        .updateTable('messages')
        .set({ call_seconds: Math.round(r.durationMs / 1000) })
        .where('id', '=', part.message_id)
        .execute();
    }
    if (r.carrierError !== undefined) {
      await db
        .updateTable('messages')
        .set({ carrier_error: r.carrierError })
        .where('id', '=', part.message_id)
        .where('carrier_error', 'is', null)
        .execute();
    }
    const next = mergePartStatus(part.part_status, r.status);
    if (next !== part.part_status) {
      part.part_status = next;
      changedParts.set(key, part);
    }
  }
  for (let i = 0; i < unmatched.length; i += CHUNK) {
    await db
      .insertInto('pending_receipts')
      .values(
        unmatched.slice(i, i + CHUNK).map((r) => ({
          carrier: r.carrier,
          carrier_message_id: r.carrierMessageId,
          status: r.status,
          at: r.at,
          created_at: now,
          refund: r.refund ? 1 : 0,
          duration_ms: r.durationMs ?? null,
          ...(r.carrierError !== undefined ? { carrier_error: r.carrierError } : {}),
        })),
      )
      .execute();
  }
  const sentAgain = await sendAgain(db, again, now);
  if (changedParts.size === 0)
    return {
      matched: receipts.length - unmatched.length,
      pending: unmatched.length,
      changed: 0,
      ...(sentAgain ? { sentAgain } : {}),
    };

  const atByMessage = new Map<number, number>();
  for (const r of receipts) {
    const part = changedParts.get(`${r.carrier}\u0000${r.carrierMessageId}`);
    if (part) atByMessage.set(part.message_id, Math.max(atByMessage.get(part.message_id) ?? 0, r.at));
  }
  const messages = await loadMessagesForUpdate(db, [...atByMessage.keys()]);
  // Part statuses are kept for messages of several parts; a one-part message's status is its part's.
  const multiPart = new Set(messages.filter((m) => m.parts > 1).map((m) => m.id));
  await updatePartStatuses(
    db,
    [...changedParts.values()].filter((p) => multiPart.has(p.message_id)),
  );
  const statusesOf = await partStatuses(db, [...multiPart]);
  const changes: StatusChange[] = [];
  const updates: Array<{ id: number; status: DeliveryStatus; state: LifecycleState; at: number }> = [];
  const changedOf = new Map<number, PartRow>();
  for (const p of changedParts.values()) changedOf.set(p.message_id, p);
  for (const m of messages) {
    // Every part's id is recorded in one transaction, so the parts known are the parts submitted.
    const submitted = statusesOf.get(m.id) ?? [];
    const event: LifecycleEvent =
      m.parts > 1
        ? { kind: 'receipts', parts: submitted, partCount: Math.max(1, submitted.length) }
        : { kind: 'receipts', parts: [changedOf.get(m.id)?.part_status], partCount: 1 };
    const next = nextState(m, event);
    if (next?.status == null) continue;
    const statusRefund = receiptStatusRefund(m.channel, next.status, next.final);
    if (statusRefund !== null) await refundMessage(db, { id: m.id }, statusRefund, now);
    const at = atByMessage.get(m.id)!;
    updates.push({ id: m.id, status: next.status, state: next.state, at });
    changes.push(changeOf(m, next.status, at));
  }
  await updateMessageStatuses(db, updates);
  await recordStatusEvents(db, changes, now);
  const followUpCalls = await followFilteredHandsets(db, changes, now);
  onChanges?.(changes);
  return {
    matched: receipts.length - unmatched.length,
    pending: unmatched.length,
    changed: changes.length,
    ...(followUpCalls ? { followUpCalls } : {}),
    ...(sentAgain ? { sentAgain } : {}),
  };
}

// Messages a carrier took and then reported throttled go back to the queue, sent again after SEND_AGAIN_MS and
// a random part of it (not counted as an attempt), unless a status already moved them on. The carrier's id of
// the throttled copy is forgotten: its later statuses, if any, match nothing.
async function sendAgain(db: Queryable, ids: number[], now: number): Promise<number> {
  let moved = 0;
  for (const id of new Set(ids)) {
    const r = await db
      .updateTable('messages')
      .set({
        state: 'queued',
        status: null,
        status_at: null,
        submitted_at: null,
        carrier: null,
        lease_until: null,
        error: 'throttled by the carrier after it took the message: sent again',
        next_attempt_at: now + Math.round(SEND_AGAIN_MS * (1 + Math.random())),
      })
      .where('id', '=', id)
      .where('state', '=', 'submitted')
      .where((eb) =>
        eb.or([eb('status', 'is', null), eb('status', 'in', [DELIVERY.SUBMITTED, DELIVERY.WHATSAPP_SENT])]),
      )
      .executeTakeFirst();
    if (Number(r.numUpdatedRows ?? 0) === 0) continue;
    moved++;
    await db.deleteFrom('carrier_message_ids').where('message_id', '=', id).execute();
  }
  return moved;
}

function changeOf(m: MessageForUpdate, status: DeliveryStatus, at: number): StatusChange {
  return {
    messageId: m.id,
    accountId: m.account_id,
    campaignId: m.campaign_id,
    externalId: m.external_id,
    phone: m.phone,
    carrier: m.carrier,
    status,
    at,
    channel: m.channel,
  };
}

async function updatePartStatuses(db: Queryable, rows: PartRow[]): Promise<void> {
  const dialect = dialectOf(db);
  if (rows.length === 0) return;
  if (dialect === 'postgres') {
    for (let i = 0; i < rows.length; i += 5000) {
      const chunk = rows.slice(i, i + 5000);
      await db.executeQuery(
        CompiledQuery.raw(
          'update carrier_message_ids c set part_status = v.status from (select unnest($1::text[]) as carrier, ' +
            'unnest($2::text[]) as cid, unnest($3::int[]) as status) v where c.carrier = v.carrier and c.carrier_message_id = v.cid',
          [chunk.map((r) => r.carrier), chunk.map((r) => r.carrier_message_id), chunk.map((r) => r.part_status)],
        ),
      );
    }
    return;
  }
  for (const r of rows) {
    await db.executeQuery(
      CompiledQuery.raw('update carrier_message_ids set part_status = ? where carrier = ? and carrier_message_id = ?', [
        r.part_status,
        r.carrier,
        r.carrier_message_id,
      ]),
    );
  }
}

// Per message, the best status seen for each part index (a message submitted twice has two ids per part).
async function partStatuses(db: Queryable, messageIds: number[]): Promise<Map<number, Array<DeliveryStatus | null>>> {
  const out = new Map<number, Array<DeliveryStatus | null>>();
  for (let i = 0; i < messageIds.length; i += CHUNK) {
    const rows = await db
      .selectFrom('carrier_message_ids')
      .select(['message_id', 'part_index', 'part_status'])
      .where('message_id', 'in', messageIds.slice(i, i + CHUNK))
      .execute();
    for (const row of rows) {
      const id = Number(row.message_id);
      const list = out.get(id) ?? [];
      list[row.part_index] = betterPartStatus(list[row.part_index], row.part_status);
      out.set(id, list);
    }
  }
  return out;
}

/**
 * Applies pending receipts whose carrier message id is now known (the submit_sm_resp was recorded after the
 * receipt arrived); looks only at receipts younger than `maxAgeMs`. Returns how many were applied.
 */
export async function rematchPending(
  db: Queryable,
  now: number,
  maxAgeMs: number,
  limit = 2000,
  onChanges?: (changes: StatusChange[]) => void,
): Promise<{ applied: number; changed: number }> {
  const rows = await db
    .selectFrom('pending_receipts as p')
    .innerJoin('carrier_message_ids as c', (j) =>
      j.onRef('c.carrier', '=', 'p.carrier').onRef('c.carrier_message_id', '=', 'p.carrier_message_id'),
    )
    .select([
      'p.id',
      'p.carrier',
      'p.carrier_message_id',
      'p.status',
      'p.at',
      'p.refund',
      'p.duration_ms',
      'p.carrier_error',
    ])
    .where('p.created_at', '>=', now - maxAgeMs)
    .orderBy('p.id')
    .limit(limit)
    .execute();
  if (rows.length === 0) return { applied: 0, changed: 0 };
  const { changed } = await applyReceipts(
    db,
    rows.map((r) => ({
      carrier: r.carrier,
      carrierMessageId: r.carrier_message_id,
      status: Number(r.status) as DeliveryStatus,
      at: Number(r.at),
      ...(Number(r.refund) === 1 ? { refund: true } : {}),
      ...(r.duration_ms !== null ? { durationMs: Number(r.duration_ms) } : {}),
      ...(r.carrier_error !== null ? { carrierError: r.carrier_error } : {}),
    })),
    now,
    onChanges,
  );
  const ids = rows.map((r) => Number(r.id));
  for (let i = 0; i < ids.length; i += CHUNK)
    await db
      .deleteFrom('pending_receipts')
      .where('id', 'in', ids.slice(i, i + CHUNK))
      .execute();
  return { applied: rows.length, changed };
}

/** Whether any pending receipt younger than `maxAgeMs` waits (cheap check before a rematch). */
export async function hasRecentPending(db: Queryable, now: number, maxAgeMs: number): Promise<boolean> {
  const row = await db
    .selectFrom('pending_receipts')
    .select('id')
    .where('created_at', '>=', now - maxAgeMs)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Receipts that have matched no message since before `before`, counted per carrier. */
export async function unmatchedReceipts(db: Queryable, before: number): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('pending_receipts')
    .select((eb) => ['carrier', eb.fn.countAll<number | string>().as('n')])
    .where('created_at', '<', before)
    .groupBy('carrier')
    .execute();
  return new Map(rows.map((r) => [r.carrier, Number(r.n)]));
}

/** Drops pending receipts older than `maxAgeMs` (their message can no longer be recorded); returns how many. */
export async function expirePending(db: Queryable, now: number, maxAgeMs: number): Promise<number> {
  const res = await db
    .deleteFrom('pending_receipts')
    .where('created_at', '<', now - maxAgeMs)
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}

/** Gives status 2 to up to `limit` submitted messages whose receipt window ended; returns how many. */
export async function sweepUnconfirmed(
  db: Queryable,
  now: number,
  limit: number,
  onChanges?: (changes: StatusChange[]) => void,
): Promise<number> {
  const dialect = dialectOf(db);
  const rows = await db
    .updateTable('messages')
    .set({ state: WINDOW_ENDED.state, status: WINDOW_ENDED.status, status_at: now })
    .where('id', 'in', (eb) => {
      const due = eb
        .selectFrom('messages')
        .select('id')
        .where('state', '=', AWAITING_RECEIPTS_STATE)
        .where('next_attempt_at', '<=', now)
        .orderBy('next_attempt_at')
        .orderBy('id')
        .limit(limit);
      return dialect === 'postgres' ? due.forUpdate().skipLocked() : due;
    })
    .where('state', '=', AWAITING_RECEIPTS_STATE)
    .returning(['id', 'account_id', 'campaign_id', 'external_id', 'phone', 'carrier', 'channel'])
    .execute();
  const changes = rows.map((r) => ({
    messageId: Number(r.id),
    accountId: Number(r.account_id),
    campaignId: Number(r.campaign_id),
    externalId: r.external_id,
    phone: r.phone,
    carrier: r.carrier,
    status: WINDOW_ENDED.status!,
    at: now,
    channel: r.channel,
  }));
  await recordStatusEvents(db, changes, now);
  onChanges?.(changes);
  return rows.length;
}
