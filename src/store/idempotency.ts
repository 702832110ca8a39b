// Idempotency key rows: claimed and given their reply in the send's own transaction, swept after a day.
import type { Queryable } from './engine/db.ts';

/** How long a key holds its first reply: a retry after a day runs as a new request. */
export const IDEMPOTENCY_WINDOW_MS = 86_400_000;

export interface KeyRecord {
  requestHash: string;
  /** The first request's reply (JSON); null only inside the transaction of the request holding the key. */
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

/** Records a refusal as a key's first reply (its own statement: the refused request's transaction rolled back). */
export async function recordIdempotentRefusal(
  db: Queryable,
  accountId: number,
  key: string,
  requestHash: string,
  reply: string,
  now: number,
): Promise<void> {
  await db
    .insertInto('idempotency_keys')
    .values({ account_id: accountId, idem_key: key, request_hash: requestHash, reply, created_at: now })
    .onConflict((oc) => oc.columns(['account_id', 'idem_key']).doNothing())
    .execute();
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
