// Verified senders (`source` values an account may send from).
import { runPrepared, type Queryable } from './engine/db.ts';
import { readOncePerGroup } from './engine/pg-group-commit.ts';

/** Marks a source as verified for the account (idempotent). */
export async function addVerifiedSender(
  db: Queryable,
  accountId: number,
  source: string,
  method: string,
  now: number,
): Promise<void> {
  await db
    .insertInto('verified_senders')
    .values({ account_id: accountId, source, method, verified_at: now })
    .onConflict((oc) => oc.columns(['account_id', 'source']).doNothing())
    .execute();
}

/** True when the source is verified for the account (a prepared query: it runs on every send). */
export function isVerifiedSender(db: Queryable, accountId: number, source: string): Promise<boolean> {
  return readOncePerGroup(
    db,
    `sender:${accountId}:${source}`,
    async () => (await runPrepared(db, verifiedSenderQuery, [accountId, source])).length > 0,
  );
}

function verifiedSenderQuery(db: Queryable) {
  return db.selectFrom('verified_senders').select('id').where('account_id', '=', 0).where('source', '=', '');
}

/** Verified senders of the account (and, with `withSubs`, of its sub-accounts), ordered by source. */
export async function listVerifiedSenders(
  db: Queryable,
  accountId: number,
  withSubs: boolean,
): Promise<Array<{ account_id: number; source: string; method: string; verified_at: number }>> {
  const accountIds = [accountId];
  if (withSubs) {
    const subs = await db.selectFrom('accounts').select('id').where('parent_id', '=', accountId).execute();
    accountIds.push(...subs.map((s) => Number(s.id)));
  }
  return db
    .selectFrom('verified_senders')
    .select(['account_id', 'source', 'method', 'verified_at'])
    .where('account_id', 'in', accountIds)
    .orderBy('source')
    .orderBy('account_id')
    .execute();
}

export interface NewSenderVerification {
  accountId: number;
  phone: string;
  source: string;
  kind: 'mobile' | 'landline';
  code: string | null;
  now: number;
  expiresAt: number;
}

/** Records a pending verification (a mobile's link code, or a landline awaiting the operator). */
export async function insertSenderVerification(db: Queryable, v: NewSenderVerification): Promise<void> {
  await db
    .insertInto('sender_verifications')
    .values({
      account_id: v.accountId,
      phone: v.phone,
      source: v.source,
      kind: v.kind,
      code: v.code,
      created_at: v.now,
      expires_at: v.expiresAt,
      verified_at: null,
    })
    .execute();
}

/** How many verifications the account asked for this number since `since` (to limit repeats). */
export async function countRecentVerifications(
  db: Queryable,
  accountId: number,
  phone: string,
  since: number,
): Promise<number> {
  const row = await db
    .selectFrom('sender_verifications')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('phone', '=', phone)
    .where('created_at', '>=', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A pending verification by its link code. */
export async function findSenderVerification(
  db: Queryable,
  code: string,
): Promise<
  { id: number; account_id: number; source: string; expires_at: number; verified_at: number | null } | undefined
> {
  return db
    .selectFrom('sender_verifications')
    .select(['id', 'account_id', 'source', 'expires_at', 'verified_at'])
    .where('code', '=', code)
    .executeTakeFirst();
}

/** Completes a verification: marks it used (once) and verifies the sender. False when already used or expired. */
export async function completeSenderVerification(db: Queryable, code: string, now: number): Promise<boolean> {
  const row = await db
    .updateTable('sender_verifications')
    .set({ verified_at: now })
    .where('code', '=', code)
    .where('verified_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['account_id', 'source'])
    .executeTakeFirst();
  if (!row) return false;
  await addVerifiedSender(db, Number(row.account_id), row.source, 'sms-link', now);
  return true;
}

/** Every verified sender of every account, by username and source. */
export async function allVerifiedSenders(
  db: Queryable,
): Promise<Array<{ username: string; source: string; method: string; verifiedAt: number }>> {
  const rows = await db
    .selectFrom('verified_senders as v')
    .innerJoin('accounts as a', 'a.id', 'v.account_id')
    .select(['a.username', 'v.source', 'v.method', 'v.verified_at'])
    .orderBy('a.username')
    .orderBy('v.source')
    .execute();
  return rows.map((r) => ({
    username: r.username,
    source: r.source,
    method: r.method,
    verifiedAt: Number(r.verified_at),
  }));
}
