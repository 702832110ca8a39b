// Internal operations on an account's SMPP access (not in the API's table): its bind password (hashed; SMPP v3.4
// passwords are at most 8 characters), whether it binds over TLS only, and its limits (binds at once, submits per
// second, window). `yona admin smpp-password` and `yona admin smpp-limits` run them through the runner.
import { z } from 'zod';
import { ApiError } from '../domain/errors.ts';
import { hashPassword } from '../domain/password.ts';
import { statusMessage } from '../domain/status.ts';
import { saveSmppLimits, saveSmppPassword } from '../store/smpp-accounts.ts';
import { defineOperation } from './types.ts';

const ok = { status: 0, message: statusMessage(0) } as const;

/** The longest bind password SMPP v3.4 carries (a C-octet string of 9 with its NUL). */
export const SMPP_PASSWORD_MAX = 8;

/** Sets the account's SMPP bind password and its TLS requirement (993 for a password of 0 or more than 8 characters). */
export const setSmppPassword = defineOperation({
  names: ['setSmppPassword'],
  internal: true,
  input: z.object({ password: z.string(), tlsOnly: z.boolean().optional() }),
  reply: z.object({}),
  prepare: (input) => hashPassword(input.password),
  async handler(ctx, input) {
    if (input.password.length === 0 || input.password.length > SMPP_PASSWORD_MAX)
      throw new ApiError(993, `An SMPP password has 1 to ${SMPP_PASSWORD_MAX} characters (SMPP v3.4)`);
    await saveSmppPassword(ctx.db, ctx.account.id, ctx.prepared as string, input.tlsOnly === true, ctx.now);
    return { ...ok };
  },
});

const limit = (max: number) => z.number().int().min(0).max(max).optional();

/** Changes the account's SMPP limits (2 when it has no SMPP password yet). */
export const setSmppLimits = defineOperation({
  names: ['setSmppLimits'],
  internal: true,
  input: z.object({ binds: limit(1000), submitsPerSecond: limit(1_000_000), window: limit(100_000) }),
  reply: z.object({}),
  async handler(ctx, input) {
    if (input.binds === 0 || input.window === 0)
      throw new ApiError(2, 'binds and window take at least 1 (submits per second 0: no limit)');
    const saved = await saveSmppLimits(
      ctx.db,
      ctx.account.id,
      { maxBinds: input.binds, submitsPerSecond: input.submitsPerSecond, windowSize: input.window },
      ctx.now,
    );
    if (!saved) throw new ApiError(2, 'This account has no SMPP password yet: set one first (smpp-password)');
    return { ...ok };
  },
});
