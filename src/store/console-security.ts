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
