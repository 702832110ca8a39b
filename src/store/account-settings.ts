// The writes of an account's own settings that the console and the CLI change through operations (the console's
// read models, store/console-*.ts, only read): its console password and second factor, a reseller's hold on a
// sub-account, the low-balance warning level.
import type { Queryable } from './engine/db.ts';

/** Sets the password hash; every console session of the account but `keepSessionId` ends. */
export async function changePassword(
  db: Queryable,
  accountId: number,
  passwordHash: string,
  keepSessionId: number,
): Promise<void> {
  await db.updateTable('accounts').set({ password_hash: passwordHash }).where('id', '=', accountId).execute();
  await db
    .deleteFrom('console_sessions')
    .where('account_id', '=', accountId)
    .where('id', '<>', keepSessionId)
    .execute();
}

/** Turns two-factor on (a sealed secret and recovery code hashes) or off (nulls). */
export async function setTwoFactor(
  db: Queryable,
  accountId: number,
  sealedSecret: string | null,
  recoveryHashes: string[] | null,
): Promise<void> {
  await db
    .updateTable('accounts')
    .set({
      totp_secret: sealedSecret,
      totp_recovery: recoveryHashes ? JSON.stringify(recoveryHashes) : null,
      totp_last_step: null,
    })
    .where('id', '=', accountId)
    .execute();
}

/**
 * Suspends (`at`) or resumes (null) the reseller's sub-account `username`; false when it is not one of its own, or
 * when the operator suspended or closed it (the reseller neither lifts nor overrides the operator's hold).
 */
export async function setSubAccountSuspended(
  db: Queryable,
  resellerId: number,
  username: string,
  at: number | null,
): Promise<boolean> {
  const result = await db
    .updateTable('accounts')
    .set({ suspended_at: at, suspended_by: at === null ? null : 'reseller' })
    .where('username', '=', username)
    .where('parent_id', '=', resellerId)
    .where((eb) => eb.or([eb('suspended_by', 'is', null), eb('suspended_by', '=', 'reseller')]))
    .where('closed_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Sets the low-balance warning level (credits); null: no warning. */
export async function setLowBalanceThreshold(db: Queryable, accountId: number, credits: number | null): Promise<void> {
  await db.updateTable('accounts').set({ low_balance_credits: credits }).where('id', '=', accountId).execute();
}
