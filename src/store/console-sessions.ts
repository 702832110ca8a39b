// Web console sessions and failed logins. A session row holds only the SHA-256 of the id in the cookie.
import { accountRefusal, type AccountRefusal } from '../domain/accounts.ts';
import type { Queryable } from './engine/db.ts';

export interface ConsoleSession {
  id: number;
  accountId: number;
  csrf: string;
  lastSeenAt: number;
  expiresAt: number;
}

export async function insertConsoleSession(
  db: Queryable,
  s: { idHash: string; accountId: number; csrf: string; now: number; expiresAt: number },
): Promise<void> {
  await db
    .insertInto('console_sessions')
    .values({
      id_hash: s.idHash,
      account_id: s.accountId,
      csrf: s.csrf,
      created_at: s.now,
      last_seen_at: s.now,
      expires_at: s.expiresAt,
    })
    .execute();
}

export async function findConsoleSession(db: Queryable, idHash: string): Promise<ConsoleSession | undefined> {
  const row = await db
    .selectFrom('console_sessions')
    .select(['id', 'account_id', 'csrf', 'last_seen_at', 'expires_at'])
    .where('id_hash', '=', idHash)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    id: Number(row.id),
    accountId: Number(row.account_id),
    csrf: row.csrf,
    lastSeenAt: Number(row.last_seen_at),
    expiresAt: Number(row.expires_at),
  };
}

export async function touchConsoleSession(db: Queryable, id: number, now: number): Promise<void> {
  await db.updateTable('console_sessions').set({ last_seen_at: now }).where('id', '=', id).execute();
}

export async function deleteConsoleSession(db: Queryable, id: number): Promise<void> {
  await db.deleteFrom('console_sessions').where('id', '=', id).execute();
}

/** Removes sessions past their absolute or idle expiry. */
export async function deleteExpiredConsoleSessions(db: Queryable, now: number, idleMs: number): Promise<void> {
  await db
    .deleteFrom('console_sessions')
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', now - idleMs)]))
    .execute();
}

export async function recordLoginFailure(db: Queryable, username: string, address: string, now: number): Promise<void> {
  await db.insertInto('console_login_failures').values({ username, address, failed_at: now }).execute();
}

/** Failed logins for this username from this address since `since`, and the latest of them. */
export async function recentLoginFailures(
  db: Queryable,
  username: string,
  address: string,
  since: number,
): Promise<{ count: number; last: number }> {
  const row = await db
    .selectFrom('console_login_failures')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('failed_at').as('last')])
    .where('username', '=', username)
    .where('address', '=', address)
    .where('failed_at', '>', since)
    .executeTakeFirst();
  return { count: Number(row?.n ?? 0), last: Number(row?.last ?? 0) };
}

/**
 * Failed logins for this username from any address since `since` (the per-account ceiling): how many, the
 * latest of them, and from how many addresses.
 */
export async function recentAccountFailures(
  db: Queryable,
  username: string,
  since: number,
): Promise<{ count: number; last: number; addresses: number }> {
  const row = await db
    .selectFrom('console_login_failures')
    .select((eb) => [
      eb.fn.countAll<number>().as('n'),
      eb.fn.max('failed_at').as('last'),
      eb.fn.count<number>('address').distinct().as('addresses'),
    ])
    .where('username', '=', username)
    .where('failed_at', '>', since)
    .executeTakeFirst();
  return { count: Number(row?.n ?? 0), last: Number(row?.last ?? 0), addresses: Number(row?.addresses ?? 0) };
}

/** Forgets the failures of a username from one address (a right password from there). */
export async function clearAddressFailures(db: Queryable, username: string, address: string): Promise<void> {
  await db
    .deleteFrom('console_login_failures')
    .where('username', '=', username)
    .where('address', '=', address)
    .execute();
}

export async function clearLoginFailures(db: Queryable, username: string): Promise<void> {
  await db.deleteFrom('console_login_failures').where('username', '=', username).execute();
}

/** The password hash of an account, for a console login. */
export async function findLoginAccount(
  db: Queryable,
  username: string,
): Promise<
  { id: number; passwordHash: string; refusal: AccountRefusal | null; totpSecret: string | null } | undefined
> {
  const row = await db
    .selectFrom('accounts')
    .select(['id', 'password_hash', 'suspended_at', 'suspended_by', 'closed_at', 'totp_secret'])
    .where('username', '=', username)
    .executeTakeFirst();
  return row
    ? {
        id: Number(row.id),
        passwordHash: row.password_hash,
        refusal: accountRefusal(row),
        totpSecret: row.totp_secret,
      }
    : undefined;
}
