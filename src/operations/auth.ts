// Who is calling: the bearer token (3, 10, 11), the account's IP allowlist (511), and the account acted for
// (`user.username`: 11 for a stranger's name, 503 for a reseller naming an account that is not its own).
// The token itself comes from the HTTP edge (http/bearer.ts).
import { accountRefusal, type AccountRefusal } from '../domain/accounts.ts';
import { ApiError } from '../domain/errors.ts';
import { addressAllowed, normalizeAddress } from '../domain/ip.ts';
import { hashToken } from '../domain/token.ts';
import { findAccountByUsername, listAllowedIps, type Account } from '../store/accounts.ts';
import type { Queryable } from '../store/engine/db.ts';
import { findTokenByHash } from '../store/tokens.ts';

/** The account owning a valid token; throws ApiError 3, 10 or 11. */
export async function authenticateToken(db: Queryable, token: string | undefined, now: number): Promise<Account> {
  if (!token) throw new ApiError(3, 'Username or password is incorrect and API token is invalid: no bearer token');
  const found = await findTokenByHash(db, hashToken(token));
  if (!found) throw new ApiError(3);
  if (found.token.expires_at <= now) throw new ApiError(10);
  if (found.token.superseded_at !== null) {
    throw new ApiError(11, 'API token was superseded by a newer token; use a newer token');
  }
  return found.account;
}

/** What the customer reads for each refusal (no product name, no operator command: the operator has the log). */
const REFUSALS: Record<AccountRefusal, string> = {
  'suspended-by-reseller': 'You have no permission for this function: this account is suspended by its reseller',
  'suspended-by-operator': 'You have no permission for this function: this account is suspended; ask your provider',
  closed: 'You have no permission for this function: this account is closed',
};

/**
 * An account suspended (by its reseller or the operator) or closed answers 511 to every call, by token or
 * password, until resumed (domain/accounts.ts accountRefusal: the one rule every way in reads).
 */
export function refuseSuspended(account: Account): void {
  const refusal = accountRefusal(account);
  if (refusal !== null) throw new ApiError(511, REFUSALS[refusal]);
}

/** Enforces the account's IP allowlist: with the check on, only listed addresses may call (none: nobody). */
export async function checkIpAllowed(db: Queryable, account: Account, ip: string): Promise<void> {
  if (!account.ip_check) return;
  const cidrs = await listAllowedIps(db, account.id);
  if (!addressAllowed(ip, cidrs)) {
    const shown = normalizeAddress(ip)?.toString() ?? ip; // ::ffff:1.2.3.4 (a dual-stack listener) as 1.2.3.4
    throw new ApiError(
      511,
      `You have no permission for this function: IP address ${shown} is not authorised for this account`,
    );
  }
}

/** The account named by `user.username`, as the token's owner may act for it. */
export async function resolveActingAccount(db: Queryable, caller: Account, username: string): Promise<Account> {
  if (username === caller.username) return caller;
  if (!caller.is_reseller) throw new ApiError(11);
  const target = await findAccountByUsername(db, username);
  if (!target || target.parent_id !== caller.id) throw new ApiError(503);
  return target;
}
