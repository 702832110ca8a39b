// Internal operations on an account's own settings (not in the API's table): its console password and second
// factor, the low-balance warning level, and a reseller's hold on a sub-account. The console runs them once its
// own checks passed (the signed-in user, the current password or code, CSRF); `yona admin set-password` runs
// setConsolePassword for the operator.
import { randomBytes, hash } from 'node:crypto';
import { z } from 'zod';
import { passwordProblem } from '../domain/accounts.ts';
import { ApiError } from '../domain/errors.ts';
import { hashPassword } from '../domain/password.ts';
import { seal } from '../domain/sealed.ts';
import { statusMessage } from '../domain/status.ts';
import { base32Encode } from '../domain/totp.ts';
import { sealingKey } from '../secret-key.ts';
import {
  changePassword,
  setLowBalanceThreshold,
  setSubAccountSuspended,
  setTwoFactor,
} from '../store/account-settings.ts';
import { acceptTotpStep } from '../store/console-security.ts';
import { clearLoginFailures } from '../store/console-sessions.ts';
import { defineOperation } from './types.ts';

const ok = { status: 0, message: statusMessage(0) } as const;
const RECOVERY_CODES = 10;

// A password that breaks the rules is refused before anything is hashed (2, with the rule broken).
function checkedPassword(password: string): string {
  const problem = passwordProblem(password);
  if (problem) throw new ApiError(2, `Invalid value for field password: ${problem}`);
  return password;
}

/**
 * Sets the account's console password and lifts its sign-in lockout; every console session but `keepSession` (the
 * one that changed it) ends. Hashed (argon2id) before the transaction opens.
 */
export const setConsolePassword = defineOperation({
  names: ['setConsolePassword'],
  internal: true,
  input: z.object({ password: z.string(), keepSession: z.number().int().optional() }),
  reply: z.object({}),
  prepare: async ({ password }) => (passwordProblem(password) ? undefined : hashPassword(password)),
  async handler(ctx, input) {
    checkedPassword(input.password);
    await changePassword(ctx.db, ctx.account.id, ctx.prepared as string, input.keepSession ?? -1);
    await clearLoginFailures(ctx.db, ctx.account.username);
    return ok;
  },
});

const sha256 = (text: string) => hash('sha256', text, 'hex');

/**
 * Turns two-factor sign-in on with `secret` (confirmed by a code of `confirmedStep`, which then counts as used);
 * answers the ten recovery codes, shown once and kept only as hashes.
 */
export const enableTwoFactor = defineOperation({
  names: ['enableTwoFactor'],
  internal: true,
  input: z.object({ secret: z.string().min(1), confirmedStep: z.number().int() }),
  reply: z.object({ recoveryCodes: z.array(z.string()) }),
  async handler(ctx, input) {
    const codes = Array.from({ length: RECOVERY_CODES }, () => base32Encode(randomBytes(5)));
    await setTwoFactor(ctx.db, ctx.account.id, seal(sealingKey(ctx.config), input.secret), codes.map(sha256));
    await acceptTotpStep(ctx.db, ctx.account.id, input.confirmedStep);
    return { ...ok, recoveryCodes: codes.map((c) => `${c.slice(0, 4)}-${c.slice(4)}`) };
  },
});

/** Turns two-factor sign-in off (its secret and recovery codes are dropped). */
export const disableTwoFactor = defineOperation({
  names: ['disableTwoFactor'],
  internal: true,
  input: z.object({}),
  reply: z.object({}),
  async handler(ctx) {
    await setTwoFactor(ctx.db, ctx.account.id, null, null);
    return ok;
  },
});

/** Sets the credits below which the overview warns (null: no warning). */
export const setLowBalanceWarning = defineOperation({
  names: ['setLowBalanceWarning'],
  internal: true,
  input: z.object({ credits: z.number().int().min(0).max(999_999_999_999).nullable() }),
  reply: z.object({}),
  async handler(ctx, input) {
    await setLowBalanceThreshold(ctx.db, ctx.account.id, input.credits);
    return ok;
  },
});

/**
 * A reseller suspends or resumes one of its sub-accounts (511 for any other account); `done` false when the
 * username is not one of its own, or the operator holds or closed it.
 */
export const holdSubAccount = defineOperation({
  names: ['holdSubAccount'],
  internal: true,
  resellerOnly: true,
  input: z.object({ username: z.string().max(200), suspend: z.boolean() }),
  reply: z.object({ done: z.boolean() }),
  async handler(ctx, input) {
    const at = input.suspend ? ctx.now : null;
    return { ...ok, done: await setSubAccountSuspended(ctx.db, ctx.account.id, input.username, at) };
  },
});
