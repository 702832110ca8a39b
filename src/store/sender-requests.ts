// Sender requests (a customer asks for a sender name; the operator approves or rejects it with a reason) and the
// reserved sender names (migration 0053).
import type { SenderRequestState } from '../domain/sender-names.ts';
import type { Queryable } from './engine/db.ts';

export interface SenderRequest {
  id: number;
  accountId: number;
  username: string;
  source: string;
  reason: string;
  state: SenderRequestState;
  decisionReason: string | null;
  decidedBy: string | null;
  requestedAt: number;
  decidedAt: number | null;
}

function selectRequests(db: Queryable) {
  return db
    .selectFrom('sender_requests as r')
    .innerJoin('accounts as a', 'a.id', 'r.account_id')
    .select([
      'r.id',
      'r.account_id',
      'a.username',
      'r.source',
      'r.reason',
      'r.state',
      'r.decision_reason',
      'r.decided_by',
      'r.requested_at',
      'r.decided_at',
    ]);
}

type Row = Awaited<ReturnType<ReturnType<typeof selectRequests>['execute']>>[number];

function toRequest(r: Row): SenderRequest {
  return {
    id: Number(r.id),
    accountId: Number(r.account_id),
    username: r.username,
    source: r.source,
    reason: r.reason,
    state: r.state as SenderRequestState,
    decisionReason: r.decision_reason,
    decidedBy: r.decided_by,
    requestedAt: Number(r.requested_at),
    decidedAt: r.decided_at === null ? null : Number(r.decided_at),
  };
}

/** Records a pending request; answers its id. */
export async function insertSenderRequest(
  db: Queryable,
  r: { accountId: number; source: string; reason: string; now: number },
): Promise<number> {
  const row = await db
    .insertInto('sender_requests')
    .values({
      account_id: r.accountId,
      source: r.source,
      reason: r.reason,
      state: 'pending',
      decision_reason: null,
      decided_by: null,
      requested_at: r.now,
      decided_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** The account's pending request for this source (any case), if any. */
export async function pendingRequestFor(
  db: Queryable,
  accountId: number,
  source: string,
): Promise<SenderRequest | undefined> {
  const rows = await selectRequests(db)
    .where('r.account_id', '=', accountId)
    .where('r.state', '=', 'pending')
    .execute();
  const found = rows.find((r) => r.source.toLowerCase() === source.toLowerCase());
  return found ? toRequest(found) : undefined;
}

/** One request by id. */
export async function findSenderRequest(db: Queryable, id: number): Promise<SenderRequest | undefined> {
  const row = await selectRequests(db).where('r.id', '=', id).executeTakeFirst();
  return row ? toRequest(row) : undefined;
}

/** An account's requests, newest first. */
export async function accountSenderRequests(db: Queryable, accountId: number, limit = 200): Promise<SenderRequest[]> {
  const rows = await selectRequests(db)
    .where('r.account_id', '=', accountId)
    .orderBy('r.requested_at', 'desc')
    .orderBy('r.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toRequest);
}

/** Every account's requests (pending only, or all), the pending oldest first, the decided newest first. */
export async function allSenderRequests(
  db: Queryable,
  o: { pendingOnly?: boolean; limit?: number } = {},
): Promise<SenderRequest[]> {
  let q = selectRequests(db);
  if (o.pendingOnly) q = q.where('r.state', '=', 'pending');
  const rows = await q
    .orderBy('r.requested_at', 'desc')
    .orderBy('r.id', 'desc')
    .limit(o.limit ?? 500)
    .execute();
  const all = rows.map(toRequest);
  return [...all.filter((r) => r.state === 'pending').reverse(), ...all.filter((r) => r.state !== 'pending')];
}

/** Decides a pending request; false when it is not pending (already decided, or unknown). */
export async function decideSenderRequest(
  db: Queryable,
  d: { id: number; state: 'approved' | 'rejected'; reason: string | null; by: string; now: number },
): Promise<boolean> {
  const row = await db
    .updateTable('sender_requests')
    .set({ state: d.state, decision_reason: d.reason, decided_by: d.by, decided_at: d.now })
    .where('id', '=', d.id)
    .where('state', '=', 'pending')
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** The reserved sender name patterns, sorted. */
export async function reservedSenderPatterns(db: Queryable): Promise<string[]> {
  const rows = await db.selectFrom('reserved_senders').select('pattern').orderBy('pattern').execute();
  return rows.map((r) => r.pattern);
}

/** Adds a reserved pattern; false when it was there already. */
export async function addReservedSender(db: Queryable, pattern: string, now: number): Promise<boolean> {
  const rows = await db
    .insertInto('reserved_senders')
    .values({ pattern, created_at: now })
    .onConflict((oc) => oc.column('pattern').doNothing())
    .returning('pattern')
    .execute();
  return rows.length > 0;
}

/** Removes a reserved pattern; false when it was not there. */
export async function removeReservedSender(db: Queryable, pattern: string): Promise<boolean> {
  const rows = await db.deleteFrom('reserved_senders').where('pattern', '=', pattern).returning('pattern').execute();
  return rows.length > 0;
}

/** Whether a pattern is on the reserved list. */
export async function isReservedPattern(db: Queryable, pattern: string): Promise<boolean> {
  const row = await db
    .selectFrom('reserved_senders')
    .select('pattern')
    .where('pattern', '=', pattern)
    .executeTakeFirst();
  return row !== undefined;
}
