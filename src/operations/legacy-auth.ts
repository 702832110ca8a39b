// Password authentication for integrations written before API tokens (`<user><username/><password/></user>`),
// opt-in per account (`yona admin legacy-password USERNAME on`). Only over TLS (or from a trusted proxy that
// terminated it); five wrong passwords in a row lock it for 15 minutes (status 511, saying until when). Verifying
// argon2id costs tens of milliseconds, so a verified credential is remembered for a minute, keyed by a hash of
// the username, the password and the stored hash: a changed password, or the switch turned off, is never matched.
// The password is never logged; every such call is counted (metrics) and logged as legacy by the caller's hook.
import { createHash } from 'node:crypto';
import { ApiError } from '../domain/errors.ts';
import { verifyPassword } from '../domain/password.ts';
import { clearLegacyFailures, legacyCredentials, recordLegacyFailure, type Account } from '../store/accounts.ts';
import type { Queryable } from '../store/engine/db.ts';

/** Wrong passwords in a row that lock password authentication, and for how long. */
export const LEGACY_FAILURE_LIMIT = 5;
export const LEGACY_LOCK_MS = 15 * 60_000;
const CACHE_MS = 60_000;
const CACHE_MAX = 10_000;

/** Remembered verifications: key -> account id and until when. */
const verified = new Map<string, { accountId: number; until: number }>();

function cacheKey(username: string, password: string, passwordHash: string): string {
  return createHash('sha256')
    .update(username)
    .update('\0')
    .update(password)
    .update('\0')
    .update(passwordHash)
    .digest('base64url');
}

/** The outcome of one password authentication, for the metric and the log. */
export type LegacyResult = 'ok' | 'off' | 'plain-http' | 'wrong' | 'locked';

/**
 * The account a username and password authenticate (as read now), or an ApiError: 3 when the account does not allow it, the
 * call came over plain HTTP, or the password is wrong; 511 while locked. Runs on its own (not in the request's
 * transaction), so a failure is counted even though the request answers an error.
 */
export async function authenticatePassword(
  db: Queryable,
  username: string,
  password: string,
  secure: boolean,
  now: number,
  report: (result: LegacyResult) => void = () => {},
): Promise<Account> {
  const credentials = await legacyCredentials(db, username);
  if (!credentials?.enabled) {
    report('off');
    throw new ApiError(
      3,
      'Username or password is incorrect and API token is invalid: password authentication is off for this account; use a bearer token',
    );
  }
  if (!secure) {
    report('plain-http');
    throw new ApiError(
      3,
      'Username or password is incorrect and API token is invalid: password authentication is accepted only over HTTPS',
    );
  }
  const { account, lockedUntil } = credentials;
  if (lockedUntil !== null && lockedUntil > now) {
    report('locked');
    const minutes = Math.ceil((lockedUntil - now) / 60_000);
    throw new ApiError(
      511,
      `You have no permission for this function: password authentication is locked for ${minutes} more minutes after ${LEGACY_FAILURE_LIMIT} wrong passwords`,
    );
  }
  const key = cacheKey(username, password, credentials.passwordHash);
  const remembered = verified.get(key);
  if (remembered && remembered.until > now && remembered.accountId === account.id) {
    report('ok');
    return account;
  }
  if (!(await verifyPassword(credentials.passwordHash, password))) {
    const locked = await recordLegacyFailure(db, account.id, now, LEGACY_FAILURE_LIMIT, LEGACY_LOCK_MS);
    report(locked ? 'locked' : 'wrong');
    throw new ApiError(
      3,
      locked
        ? `Username or password is incorrect and API token is invalid: password authentication is now locked for ${LEGACY_LOCK_MS / 60_000} minutes`
        : 'Username or password is incorrect and API token is invalid',
    );
  }
  await clearLegacyFailures(db, account.id);
  if (verified.size >= CACHE_MAX) verified.clear();
  verified.set(key, { accountId: account.id, until: now + CACHE_MS });
  report('ok');
  return account;
}
