// Verified senders (`source` values an account may send from).
import type { Queryable } from './db.ts';

/** Marks a source as verified for the account (idempotent). */
export async function addVerifiedSender(db: Queryable, accountId: number, source: string, method: string, now: number): Promise<void> {
  await db
    .insertInto('verified_senders')
    .values({ account_id: accountId, source, method, verified_at: now })
    .onConflict((oc) => oc.columns(['account_id', 'source']).doNothing())
    .execute();
}

/** True when the source is verified for the account. */
export async function isVerifiedSender(db: Queryable, accountId: number, source: string): Promise<boolean> {
  const row = await db
    .selectFrom('verified_senders')
    .select('id')
    .where('account_id', '=', accountId)
    .where('source', '=', source)
    .executeTakeFirst();
  return row !== undefined;
}
