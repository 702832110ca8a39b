// Account rows: creation, lookup, allowed IPs and sub-account relations.
import { sql, type Selectable } from 'kysely';
import { runPrepared, type Queryable } from './engine/db.ts';
import type { AccountTable } from './schema/index.ts';

/** An account as requests see it: the password hash stays in the store, and the one-time-code fields are read
 *  where they are used (authentication, on every request, reads only these columns). */
export type Account = Omit<
  Selectable<AccountTable>,
  | 'password_hash'
  | 'otp_phone'
  | 'otp_international'
  | 'legacy_password'
  | 'legacy_failures'
  | 'legacy_locked_until'
  | 'low_balance_credits'
  | 'totp_secret'
  | 'totp_recovery'
  | 'totp_last_step'
  | 'suspension_reason'
  | 'push_allow_private'
>;

/** What password authentication reads of an account: the account, and its password state. */
export interface LegacyCredentials {
  account: Account;
  passwordHash: string;
  enabled: boolean;
  lockedUntil: number | null;
}

/** The account with this username and its password-authentication state, if any (prepared: every such call runs it). */
export async function legacyCredentials(db: Queryable, username: string): Promise<LegacyCredentials | undefined> {
  const [row] = await runPrepared(db, legacyCredentialsQuery, [username]);
  if (!row) return undefined;
  const { password_hash, legacy_password, legacy_locked_until, ...account } = row;
  return {
    account,
    passwordHash: password_hash,
    enabled: Number(legacy_password) === 1,
    lockedUntil: legacy_locked_until === null ? null : Number(legacy_locked_until),
  };
}

function legacyCredentialsQuery(db: Queryable) {
  return db
    .selectFrom('accounts')
    .select([
      'id',
      'username',
      'name',
      'credits',
      'intl_agorot',
      'is_reseller',
      'parent_id',
      'time_zone',
      'ip_check',
      'created_at',
      'suspended_at',
      'suspended_by',
      'closed_at',
      'password_hash',
      'legacy_password',
      'legacy_locked_until',
    ])
    .where('username', '=', '?');
}

/** Records a wrong password; the `limit`th in a row locks password authentication until `now + lockMs`. */
export async function recordLegacyFailure(
  db: Queryable,
  id: number,
  now: number,
  limit: number,
  lockMs: number,
): Promise<boolean> {
  const row = await db
    .updateTable('accounts')
    .set((eb) => ({ legacy_failures: eb('legacy_failures', '+', 1) }))
    .where('id', '=', id)
    .returning('legacy_failures')
    .executeTakeFirst();
  if (Number(row?.legacy_failures ?? 0) < limit) return false;
  await db
    .updateTable('accounts')
    .set({ legacy_failures: 0, legacy_locked_until: now + lockMs })
    .where('id', '=', id)
    .execute();
  return true;
}

/** Forgets the wrong passwords before a right one. */
export async function clearLegacyFailures(db: Queryable, id: number): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ legacy_failures: 0, legacy_locked_until: null })
    .where('id', '=', id)
    .where('legacy_failures', '>', 0)
    .execute();
}

/** Turns password authentication on or off for an account. */
export async function setLegacyPassword(db: Queryable, id: number, enabled: boolean): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ legacy_password: enabled ? 1 : 0, legacy_failures: 0, legacy_locked_until: null })
    .where('id', '=', id)
    .execute();
}

/** Whether send_otp may go to international numbers for this account. */
export async function otpInternationalAllowed(db: Queryable, accountId: number): Promise<boolean> {
  const row = await db
    .selectFrom('accounts')
    .select('otp_international')
    .where('id', '=', accountId)
    .executeTakeFirst();
  return Number(row?.otp_international ?? 0) === 1;
}

/** Lets an account send one-time codes to international numbers, or stops it. */
export async function setOtpInternational(db: Queryable, accountId: number, allowed: boolean): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ otp_international: allowed ? 1 : 0 })
    .where('id', '=', accountId)
    .execute();
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

/** Whether an account has this username, without regard to case (usernames are unique so: migration 0022). */
export async function usernameTaken(db: Queryable, username: string): Promise<boolean> {
  const row = await db
    .selectFrom('accounts')
    .select('id')
    .where(sql`lower(username)`, '=', username.toLowerCase())
    .executeTakeFirst();
  return row !== undefined;
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
  await db
    .updateTable('accounts')
    .set({ ip_check: enabled ? 1 : 0 })
    .where('id', '=', accountId)
    .execute();
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
  const res = await db
    .deleteFrom('account_ips')
    .where('account_id', '=', accountId)
    .where('cidr', '=', cidr)
    .executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}
