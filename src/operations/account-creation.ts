// The operator's createAccount (`yona admin create-account`), an internal operation: a top-level account or a
// reseller's sub-account with opening balances and allowed addresses. Its username is taken as addSub takes it
// (claimUsername: a lock per name, 994 when taken in any case), so the CLI and the API never create one name twice.
import { z } from 'zod';
import { passwordProblem, usernameProblem } from '../domain/accounts.ts';
import { isValidTimeZone } from '../domain/dates.ts';
import { ApiError } from '../domain/errors.ts';
import { parseCidr } from '../domain/ip.ts';
import { hashPassword } from '../domain/password.ts';
import { statusMessage } from '../domain/status.ts';
import { allowIp, findAccountByUsername, insertAccount } from '../store/accounts.ts';
import { applyLedgerChange } from '../store/ledger.ts';
import { claimUsername } from './reseller.ts';
import type { OperatorOperation } from './types.ts';

const createAccountInput = z.object({
  username: z.string(),
  password: z.string(),
  name: z.string().optional(),
  credits: z.number().int().min(0),
  internationalAgorot: z.number().int().min(0),
  reseller: z.boolean(),
  parent: z.string().optional(),
  timeZone: z.string(),
  allowIps: z.array(z.string()),
});
const createAccountReply = z.object({ id: z.number().int() });

/** Creates an account (995 username, 993 password, 2 time zone or address, 3 unknown parent, 994 name taken). */
export const createAccount: OperatorOperation<typeof createAccountInput, typeof createAccountReply> = {
  names: ['createAccount'],
  internal: true,
  input: createAccountInput,
  reply: createAccountReply,
  prepare: async ({ password }) => (passwordProblem(password) ? undefined : hashPassword(password)),
  async handler(ctx, a) {
    const usernameIssue = usernameProblem(a.username);
    if (usernameIssue) throw new ApiError(995, `Username length is invalid: ${usernameIssue}`);
    const passwordIssue = passwordProblem(a.password);
    if (passwordIssue) throw new ApiError(993, `Password length is invalid: ${passwordIssue}`);
    if (!isValidTimeZone(a.timeZone)) throw new ApiError(2, `Invalid value for field timeZone: "${a.timeZone}"`);
    const cidrs = a.allowIps.map((c) => {
      const cidr = parseCidr(c);
      if (!cidr) throw new ApiError(2, `Invalid value for field allowIps: "${c}" is not an address or CIDR`);
      return cidr;
    });
    const parent = a.parent === undefined ? undefined : await findAccountByUsername(ctx.db, a.parent);
    if (a.parent !== undefined && !parent) throw new ApiError(3, `no account named "${a.parent}"`);
    await claimUsername(ctx, a.username);
    const id = await insertAccount(ctx.db, {
      username: a.username,
      name: a.name ?? a.username,
      passwordHash: ctx.prepared as string,
      isReseller: a.reseller,
      parentId: parent?.id ?? null,
      timeZone: a.timeZone,
      now: ctx.now,
    });
    const opening = { accountId: id, reason: 'operator: opening balance', refType: 'operator', now: ctx.now } as const;
    await applyLedgerChange(ctx.db, { ...opening, currency: 'credits', amount: a.credits });
    await applyLedgerChange(ctx.db, { ...opening, currency: 'international', amount: a.internationalAgorot });
    for (const cidr of cidrs) await allowIp(ctx.db, id, cidr, ctx.now);
    return { status: 0, message: statusMessage(0), id };
  },
};
