// Account rows: creation, lookup, allowed IPs and sub-account relations.
import type { Selectable } from 'kysely';
import type { Queryable } from './db.ts';
import type { AccountTable } from './schema.ts';

/** An account as requests see it: the password hash stays in the store, and the one-time-code fields are read
 *  where they are used (authentication, on every request, reads only these columns). */
export type Account = Omit<Selectable<AccountTable>, 'password_hash' | 'otp_phone' | 'otp_international'>;

/** Whether send_otp may go to international numbers for this account. */
export async function otpInternationalAllowed(db: Queryable, accountId: number): Promise<boolean> {
  const row = await db.selectFrom('accounts').select('otp_international').where('id', '=', accountId).executeTakeFirst();
  return Number(row?.otp_international ?? 0) === 1;
}

/** Lets an account send one-time codes to international numbers, or stops it. */
export async function setOtpInternational(db: Queryable, accountId: number, allowed: boolean): Promise<void> {
  await db.updateTable('accounts').set({ otp_international: allowed ? 1 : 0 }).where('id', '=', accountId).execute();
}

export interface NewAccount {
  username: string;
  name: string;
  passwordHash: string;
  isReseller: boolean;
  parentId: number | null;
  timeZone: string;
  /** A sub-account's phone for one-time codes (addSub `otpPhone`). */
  otpPhone?: string | null;
  now: number;
}

/** Inserts an account with zero balances; returns its id. */
export async function insertAccount(db: Queryable, a: NewAccount): Promise<number> {
  const row = await db
    .insertInto('accounts')
    .values({
      username: a.username,
      name: a.name,
      password_hash: a.passwordHash,
      credits: 0,
      intl_agorot: 0,
      is_reseller: a.isReseller ? 1 : 0,
      parent_id: a.parentId,
      time_zone: a.timeZone,
      ip_check: 0,
      otp_phone: a.otpPhone ?? null,
      created_at: a.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** The account with this username, if any. */
export async function findAccountByUsername(db: Queryable, username: string): Promise<Account | undefined> {
  return db.selectFrom('accounts').selectAll().where('username', '=', username).executeTakeFirst();
}

/** The account with this id, if any. */
export async function findAccountById(db: Queryable, id: number): Promise<Account | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Adds a CIDR to the account's allowlist and turns the check on. */
export async function allowIp(db: Queryable, accountId: number, cidr: string, now: number): Promise<void> {
  await db
    .insertInto('account_ips')
    .values({ account_id: accountId, cidr, created_at: now })
    .onConflict((oc) => oc.columns(['account_id', 'cidr']).doNothing())
    .execute();
  await db.updateTable('accounts').set({ ip_check: 1 }).where('id', '=', accountId).execute();
}

/** Turns the allowlist check on or off without touching the addresses. */
export async function setIpCheck(db: Queryable, accountId: number, enabled: boolean): Promise<void> {
  await db.updateTable('accounts').set({ ip_check: enabled ? 1 : 0 }).where('id', '=', accountId).execute();
}

/** The account's allowed CIDRs. */
export async function listAllowedIps(db: Queryable, accountId: number): Promise<string[]> {
  const rows = await db.selectFrom('account_ips').select('cidr').where('account_id', '=', accountId).execute();
  return rows.map((r) => r.cidr);
}

/** Adds a CIDR to the account's allowlist without changing whether the check is on; false when already listed. */
export async function addAllowedIp(db: Queryable, accountId: number, cidr: string, now: number): Promise<boolean> {
  const res = await db
    .insertInto('account_ips')
    .values({ account_id: accountId, cidr, created_at: now })
    .onConflict((oc) => oc.columns(['account_id', 'cidr']).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Removes a CIDR from the account's allowlist; false when it was not listed. */
export async function removeAllowedIp(db: Queryable, accountId: number, cidr: string): Promise<boolean> {
  const res = await db.deleteFrom('account_ips').where('account_id', '=', accountId).where('cidr', '=', cidr).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}
