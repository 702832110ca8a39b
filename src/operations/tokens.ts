// getApiToken: `new` mints a token (shown once, in `message`); `current` reads back the newest one masked.
import { z } from 'zod';
import { formatLong } from '../domain/dates.ts';
import { ApiError } from '../domain/errors.ts';
import { generateToken, hashToken, maskToken, MAX_ACTIVE_TOKENS, TOKEN_PREFIX } from '../domain/token.ts';
import { findAccountByUsername, type Account } from '../store/accounts.ts';
import { insertToken, listActiveTokens } from '../store/tokens.ts';
import { text } from './fields.ts';
import { defineOperation, type OperationContext } from './types.ts';

/**
 * Mints a token for an account; returns the clear token (to show once) and its expiry instant. With
 * MAX_ACTIVE_TOKENS already active it throws ApiError 511 and changes nothing (the spec: a new token invalidates none).
 */
export async function mintToken(
  db: OperationContext['db'],
  account: Account,
  now: number,
  ttlMs: number,
): Promise<{ token: string; name: string; expiresAt: number }> {
  const token = generateToken();
  const expiresAt = now + ttlMs;
  const stored = await insertToken(db, {
    accountId: account.id,
    tokenHash: hashToken(token),
    last4: token.slice(-4),
    baseName: `API ${formatLong(now, account.time_zone)}`,
    now,
    expiresAt,
  });
  if (!stored) throw new ApiError(511, `At most ${MAX_ACTIVE_TOKENS} active API tokens: delete one first`);
  return { token, name: stored.name, expiresAt };
}

async function tokenOwner(ctx: OperationContext, username: string): Promise<Account> {
  if (username === ctx.account.username) return ctx.account;
  const target = await findAccountByUsername(ctx.db, username);
  if (ctx.account.is_reseller && target && target.parent_id === ctx.account.id) return target;
  throw new ApiError(503);
}

export const getApiToken = defineOperation({
  names: ['getApiToken'],
  input: z.object({ username: text(), action: text() }),
  async handler(ctx, input) {
    if (input.action !== 'new' && input.action !== 'current') {
      throw new ApiError(502, `Action type not valid: "${input.action}" (use new or current)`);
    }
    const owner = await tokenOwner(ctx, input.username);
    if (input.action === 'new' && ctx.passwordAuthenticated) {
      throw new ApiError(
        511,
        'You have no permission for this function: a password cannot mint API tokens; mint one in the web console or with a bearer token',
      );
    }
    if (input.action === 'new') {
      const minted = await mintToken(ctx.db, owner, ctx.now, ctx.config.tokenTtlMs);
      return {
        status: 0,
        message: minted.token,
        expiration_date: formatLong(minted.expiresAt, owner.time_zone),
        name: minted.name,
      };
    }
    const active = await listActiveTokens(ctx.db, owner.id, ctx.now);
    const newest = active[active.length - 1];
    if (!newest) throw new ApiError(504);
    return {
      status: 0,
      message: maskToken(TOKEN_PREFIX, newest.last4),
      expiration_date: formatLong(newest.expires_at, owner.time_zone),
      name: newest.name,
    };
  },
});
