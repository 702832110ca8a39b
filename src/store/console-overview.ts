// Read models of the console's overview: sends and credits charged since an instant (from the campaigns, by
// the index on their account and time), the delivery rate of the messages whose outcome came since an instant
// (by the index on status time), and the push URLs failing now. Every query names the account.
import { sql } from 'kysely';
import { DELIVERY } from '../domain/status.ts';
import type { Queryable } from './engine/db.ts';

/** Messages accepted and credits charged by the account's sends since `since` (cancelled sends left out). */
export async function sendsSince(
  db: Queryable,
  accountId: number,
  since: number,
): Promise<{ messages: number; credits: number }> {
  const row = await db
    .selectFrom('campaigns')
    .select([
      sql<number>`coalesce(sum(recipients), 0)`.as('messages'),
      sql<number>`coalesce(sum(credits_charged), 0)`.as('credits'),
    ])
    .where('account_id', '=', accountId)
    .where('created_at', '>=', since)
    .where('state', '<>', 'cancelled')
    .executeTakeFirst();
  return { messages: Number(row?.messages ?? 0), credits: Number(row?.credits ?? 0) };
}

/** Final outcomes since `since`: delivered (102) and not (any other final status). */
export async function outcomesSince(
  db: Queryable,
  accountId: number,
  since: number,
): Promise<{ delivered: number; failed: number }> {
  const row = await db
    .selectFrom('messages')
    .select([
      sql<number>`coalesce(sum(case when status = ${sql.lit(DELIVERY.DELIVERED)} then 1 else 0 end), 0)`.as('ok'),
      sql<number>`count(*)`.as('n'),
    ])
    .where('account_id', '=', accountId)
    .where('status_at', '>=', since)
    .where('state', 'in', ['done', 'failed'])
    .executeTakeFirst();
  const ok = Number(row?.ok ?? 0);
  return { delivered: ok, failed: Number(row?.n ?? 0) - ok };
}

/** The account's registered push URLs with failed delivery rounds since their last success. */
export async function failingPushUrls(
  db: Queryable,
  accountId: number,
): Promise<{ type: string; url: string; failures: number; since: number | null }[]> {
  const rows = await db
    .selectFrom('push_registrations')
    .select(['type', 'url', 'consecutive_failures', 'last_failure_at'])
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .where('state', '=', 'registered')
    .where('consecutive_failures', '>', 0)
    .execute();
  return rows.map((r) => ({
    type: r.type,
    url: r.url,
    failures: Number(r.consecutive_failures),
    since: r.last_failure_at === null ? null : Number(r.last_failure_at),
  }));
}

/** The account's low-balance threshold (credits), null when it set none. */
export async function lowBalanceThreshold(db: Queryable, accountId: number): Promise<number | null> {
  const row = await db
    .selectFrom('accounts')
    .select('low_balance_credits')
    .where('id', '=', accountId)
    .executeTakeFirst();
  return row?.low_balance_credits == null ? null : Number(row.low_balance_credits);
}
