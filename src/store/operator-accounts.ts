// The operator's reads and writes of accounts (`yona admin accounts|suspend|resume|close-account`, and the
// operator console over the same operations): the listing with each account's last activity, the operator's
// suspension, closing, and the per-account push setting.
import { sql } from 'kysely';
import type { Queryable } from './engine/db.ts';

/** One account as the operator's listing shows it. */
export interface AccountListing {
  id: number;
  username: string;
  name: string;
  credits: number;
  intlAgorot: number;
  isReseller: boolean;
  /** Its reseller's username (null: a direct account of the operator). */
  reseller: string | null;
  suspendedAt: number | null;
  suspendedBy: string | null;
  suspensionReason: string | null;
  closedAt: number | null;
  /** When it last had a send accepted (its newest campaign; null: never). One index seek per account. */
  lastActivity: number | null;
}

/** Every account, by username. */
export async function listAccountsForOperator(db: Queryable): Promise<AccountListing[]> {
  const rows = await db
    .selectFrom('accounts as a')
    .leftJoin('accounts as p', 'p.id', 'a.parent_id')
    .select([
      'a.id',
      'a.username',
      'a.name',
      'a.credits',
      'a.intl_agorot',
      'a.is_reseller',
      'p.username as reseller',
      'a.suspended_at',
      'a.suspended_by',
      'a.suspension_reason',
      'a.closed_at',
      (eb) =>
        eb
          .selectFrom('campaigns as c')
          .select(sql<number | null>`max(c.created_at)`.as('at'))
          .whereRef('c.account_id', '=', 'a.id')
          .as('last_activity'),
    ])
    .orderBy('a.username')
    .execute();
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return rows.map((r) => ({
    id: Number(r.id),
    username: r.username,
    name: r.name,
    credits: Number(r.credits),
    intlAgorot: Number(r.intl_agorot),
    isReseller: Number(r.is_reseller) === 1,
    reseller: r.reseller ?? null,
    suspendedAt: num(r.suspended_at),
    suspendedBy: r.suspended_by,
    suspensionReason: r.suspension_reason,
    closedAt: num(r.closed_at),
    lastActivity: num(r.last_activity),
  }));
}

/** Suspends the account as the operator (over a reseller's suspension too), with the operator's reason. */
export async function setOperatorSuspension(db: Queryable, id: number, reason: string | null, now: number) {
  await db
    .updateTable('accounts')
    .set({ suspended_at: now, suspended_by: 'operator', suspension_reason: reason })
    .where('id', '=', id)
    .execute();
}

/** Lifts the operator's suspension; false when the operator had not suspended it. */
export async function clearOperatorSuspension(db: Queryable, id: number): Promise<boolean> {
  const res = await db
    .updateTable('accounts')
    .set({ suspended_at: null, suspended_by: null, suspension_reason: null })
    .where('id', '=', id)
    .where('suspended_by', '=', 'operator')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Its sub-accounts that are not closed, by username. */
export async function openSubAccounts(db: Queryable, id: number): Promise<string[]> {
  const rows = await db
    .selectFrom('accounts')
    .select('username')
    .where('parent_id', '=', id)
    .where('closed_at', 'is', null)
    .orderBy('username')
    .execute();
  return rows.map((r) => r.username);
}

/** How many of its campaigns wait for a time still to come (scheduled, not cancelled). */
export async function futureScheduledCampaigns(db: Queryable, id: number, now: number): Promise<number> {
  const row = await db
    .selectFrom('campaigns')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', id)
    .where('state', '=', 'scheduled')
    .where('cancelled_at', 'is', null)
    .where('scheduled_at', '>', now)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Marks the account closed and revokes its API tokens and console sessions; returns how many tokens it had. */
export async function closeAccountRow(db: Queryable, id: number, now: number): Promise<number> {
  await db.updateTable('accounts').set({ closed_at: now }).where('id', '=', id).execute();
  await db.deleteFrom('console_sessions').where('account_id', '=', id).execute();
  const res = await db.deleteFrom('api_tokens').where('account_id', '=', id).executeTakeFirst();
  return Number(res.numDeletedRows);
}

/** Whether this account's push URLs may reach private and loopback addresses. */
export async function pushAllowPrivate(db: Queryable, id: number): Promise<boolean> {
  const row = await db.selectFrom('accounts').select('push_allow_private').where('id', '=', id).executeTakeFirst();
  return Number(row?.push_allow_private ?? 0) === 1;
}

/** Lets this account's push URLs reach private and loopback addresses, or stops it. */
export async function setPushAllowPrivate(db: Queryable, id: number, allowed: boolean): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ push_allow_private: allowed ? 1 : 0 })
    .where('id', '=', id)
    .execute();
}

/** The settings the operator's account page shows beside the account's row. */
export async function accountOperatorSettings(
  db: Queryable,
  id: number,
): Promise<{ legacyPassword: boolean; otpInternational: boolean; lowBalanceCredits: number | null }> {
  const row = await db
    .selectFrom('accounts')
    .select(['legacy_password', 'otp_international', 'low_balance_credits'])
    .where('id', '=', id)
    .executeTakeFirst();
  return {
    legacyPassword: Number(row?.legacy_password ?? 0) === 1,
    otpInternational: Number(row?.otp_international ?? 0) === 1,
    lowBalanceCredits: row?.low_balance_credits == null ? null : Number(row.low_balance_credits),
  };
}
