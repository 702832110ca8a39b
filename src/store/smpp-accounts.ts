// SMPP credentials and limits per account (the SMPP server's bind checks), and the failed-bind lockout.
import type { Queryable } from './engine/db.ts';
import type { SmppAccountTable } from './schema/smpp.ts';

/** An account's SMPP settings as the bind and the limits read them. */
export interface SmppAccount {
  accountId: number;
  passwordHash: string;
  tlsOnly: boolean;
  maxBinds: number;
  submitsPerSecond: number;
  windowSize: number;
  failedBinds: number;
  lockedUntil: number | null;
}

/** The limits `yona admin smpp-limits` sets (an absent one is left as it is). */
export interface SmppLimits {
  maxBinds?: number;
  submitsPerSecond?: number;
  windowSize?: number;
}

function fromRow(r: Pick<SmppAccountTable, 'account_id' | 'password_hash'> & Record<string, unknown>): SmppAccount {
  return {
    accountId: Number(r.account_id),
    passwordHash: r.password_hash,
    tlsOnly: Number(r.tls_only) === 1,
    maxBinds: Number(r.max_binds),
    submitsPerSecond: Number(r.submits_per_second),
    windowSize: Number(r.window_size),
    failedBinds: Number(r.failed_binds),
    lockedUntil: r.locked_until === null || r.locked_until === undefined ? null : Number(r.locked_until),
  };
}

/** The account's SMPP settings, undefined when it has no SMPP password. */
export async function findSmppAccount(db: Queryable, accountId: number): Promise<SmppAccount | undefined> {
  const row = await db.selectFrom('smpp_accounts').selectAll().where('account_id', '=', accountId).executeTakeFirst();
  return row ? fromRow(row) : undefined;
}

/** Sets the account's SMPP password (a hash) and whether it binds over TLS only; clears any lockout. */
export async function saveSmppPassword(
  db: Queryable,
  accountId: number,
  passwordHash: string,
  tlsOnly: boolean,
  now: number,
): Promise<void> {
  await db
    .insertInto('smpp_accounts')
    .values({ account_id: accountId, password_hash: passwordHash, tls_only: tlsOnly ? 1 : 0, updated_at: now })
    .onConflict((oc) =>
      oc.column('account_id').doUpdateSet({
        password_hash: passwordHash,
        tls_only: tlsOnly ? 1 : 0,
        failed_binds: 0,
        locked_until: null,
        updated_at: now,
      }),
    )
    .execute();
}

/** Changes the account's SMPP limits; false when it has no SMPP password yet. */
export async function saveSmppLimits(
  db: Queryable,
  accountId: number,
  limits: SmppLimits,
  now: number,
): Promise<boolean> {
  const set: Partial<Record<'max_binds' | 'submits_per_second' | 'window_size' | 'updated_at', number>> = {
    updated_at: now,
  };
  if (limits.maxBinds !== undefined) set.max_binds = limits.maxBinds;
  if (limits.submitsPerSecond !== undefined) set.submits_per_second = limits.submitsPerSecond;
  if (limits.windowSize !== undefined) set.window_size = limits.windowSize;
  const r = await db.updateTable('smpp_accounts').set(set).where('account_id', '=', accountId).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/**
 * Counts a failed bind; the `lockAfter`-th in a row locks binds out for `lockMs`. Returns the lockout's end, if
 * this failure started one.
 */
export async function recordFailedBind(
  db: Queryable,
  accountId: number,
  now: number,
  lockAfter: number,
  lockMs: number,
): Promise<number | undefined> {
  const row = await db
    .updateTable('smpp_accounts')
    .set((eb) => ({ failed_binds: eb('failed_binds', '+', 1) }))
    .where('account_id', '=', accountId)
    .returning('failed_binds')
    .executeTakeFirst();
  if (!row || Number(row.failed_binds) < lockAfter) return undefined;
  const until = now + lockMs;
  await db
    .updateTable('smpp_accounts')
    .set({ failed_binds: 0, locked_until: until })
    .where('account_id', '=', accountId)
    .execute();
  return until;
}

/** A good bind: the count of failures starts again. */
export async function recordGoodBind(db: Queryable, accountId: number): Promise<void> {
  await db
    .updateTable('smpp_accounts')
    .set({ failed_binds: 0 })
    .where('account_id', '=', accountId)
    .where('failed_binds', '>', 0)
    .execute();
}
