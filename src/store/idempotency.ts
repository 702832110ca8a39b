// Idempotency key rows: claimed before a send runs, given its reply in the send's own transaction, swept after a day.
import type { Queryable } from './db.ts';

/** How long a key holds its first reply: a retry after a day runs as a new request. */
export const IDEMPOTENCY_WINDOW_MS = 86_400_000;

export interface KeyRecord {
  requestHash: string;
  /** The first request's reply (JSON), or null while it still runs. */
  reply: string | null;
  createdAt: number;
}

/** Claims a key for a request: true when this call claimed it, false when a row was already there. */
export async function claimIdempotencyKey(
  db: Queryable,
  accountId: number,
  key: string,
  requestHash: string,
  now: number,
): Promise<boolean> {
  const result = await db
    .insertInto('idempotency_keys')
    .values({ account_id: accountId, idem_key: key, request_hash: requestHash, reply: null, created_at: now })
    .onConflict((oc) => oc.columns(['account_id', 'idem_key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** The key's row, if any. */
export async function findIdempotencyKey(
  db: Queryable,
  accountId: number,
  key: string,
): Promise<KeyRecord | undefined> {
  const row = await db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'reply', 'created_at'])
    .where('account_id', '=', accountId)
    .where('idem_key', '=', key)
    .executeTakeFirst();
  return row && { requestHash: row.request_hash, reply: row.reply, createdAt: Number(row.created_at) };
}

/** Records the reply of the request that holds the key (run in its transaction: both commit or neither). */
export async function saveIdempotentReply(db: Queryable, accountId: number, key: string, reply: string): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ reply })
    .where('account_id', '=', accountId)
    .where('idem_key', '=', key)
    .execute();
}

/** Gives a key up (its request failed unexpectedly and did nothing): the next request with it runs. */
export async function releaseIdempotencyKey(db: Queryable, accountId: number, key: string): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('account_id', '=', accountId)
    .where('idem_key', '=', key)
    .where('reply', 'is', null)
    .execute();
}

/**
 * Takes over a key whose request has run for longer than a request can (its node stopped mid-request, and its
 * transaction was rolled back): true when this call took it.
 */
export async function takeOverIdempotencyKey(
  db: Queryable,
  accountId: number,
  key: string,
  claimedAt: number,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ created_at: now })
    .where('account_id', '=', accountId)
    .where('idem_key', '=', key)
    .where('reply', 'is', null)
    .where('created_at', '=', claimedAt)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Removes one key past its window that retention has not swept yet (the request now using it claims it anew). */
export async function dropExpiredIdempotencyKey(
  db: Queryable,
  accountId: number,
  key: string,
  createdAt: number,
): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('account_id', '=', accountId)
    .where('idem_key', '=', key)
    .where('created_at', '=', createdAt)
    .execute();
}

/** Removes keys claimed before `cutoff`; returns how many. */
export async function purgeIdempotencyKeys(db: Queryable, cutoff: number): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('created_at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}
