// The console's own security settings of an account: its password (changing it ends its other sessions and
// clears its sign-in failures), its two-factor secret (sealed) and its recovery codes (SHA-256 hashes).
import type { Queryable } from './engine/db.ts';

export interface SecurityState {
  passwordHash: string;
  totpSecret: string | null;
  recovery: string[];
}

export async function securityState(db: Queryable, accountId: number): Promise<SecurityState | undefined> {
  const row = await db
    .selectFrom('accounts')
    .select(['password_hash', 'totp_secret', 'totp_recovery'])
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    passwordHash: row.password_hash,
    totpSecret: row.totp_secret,
    recovery: row.totp_recovery ? (JSON.parse(row.totp_recovery) as string[]) : [],
  };
}

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

/** Sets the password hash from outside the console (yona admin set-password): every session ends, a sign-in lockout lifts. */
export async function resetPassword(
  db: Queryable,
  accountId: number,
  username: string,
  passwordHash: string,
): Promise<void> {
  await db.updateTable('accounts').set({ password_hash: passwordHash }).where('id', '=', accountId).execute();
  await db.deleteFrom('console_sessions').where('account_id', '=', accountId).execute();
  await db.deleteFrom('console_login_failures').where('username', '=', username).execute();
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

/** Removes one recovery code (its hash) once used; false when it is not (or no longer) one of the account's. */
export async function useRecoveryCode(db: Queryable, accountId: number, codeHash: string): Promise<boolean> {
  const state = await securityState(db, accountId);
  if (!state?.recovery.includes(codeHash)) return false;
  const rest = state.recovery.filter((h) => h !== codeHash);
  const result = await db
    .updateTable('accounts')
    .set({ totp_recovery: JSON.stringify(rest) })
    .where('id', '=', accountId)
    .where('totp_recovery', '=', JSON.stringify(state.recovery))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Records `step` as the account's last accepted TOTP step, only when it is later than the one recorded; false
 * when it is not (the code was used already, or an earlier one was): a code counts once, even in a race.
 */
export async function acceptTotpStep(db: Queryable, accountId: number, step: number): Promise<boolean> {
  const result = await db
    .updateTable('accounts')
    .set({ totp_last_step: step })
    .where('id', '=', accountId)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
