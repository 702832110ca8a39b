// Reseller operations: addSub creates a sub-account with an opening transfer of credits, updateAmountSub moves
// credits and money between the reseller and a sub-account (either way, neither side below zero), and
// getBlanceSubs lists the sub-accounts' balances. Every movement is two ledger rows in the request's transaction.
import { z } from 'zod';
import { passwordProblem, sourceProblem, usernameProblem } from '../domain/accounts.ts';
import { ApiError } from '../domain/errors.ts';
import { formatShekels, parseShekels } from '../domain/money.ts';
import { hashPassword } from '../domain/password.ts';
import { normalizePhone } from '../domain/phone.ts';
import { findAccountByUsername, insertAccount, usernameTaken, type Account } from '../store/accounts.ts';
import { lockLimitScope } from '../store/limits.ts';
import { transferBetweenAccounts, type Currency } from '../store/ledger.ts';
import { addVerifiedSender } from '../store/senders.ts';
import { listSubAccounts } from '../store/subaccounts.ts';
import { lateMissing, optText, rawText, text } from './fields.ts';
import { SHEKELS, str } from './replies.ts';
import { defineOperation, type OperationContext } from './types.ts';

/** The longest display name of a sub-account. */
export const MAX_NAME_CHARS = 50;

const first = (v: unknown) => (Array.isArray(v) ? v[0] : v);

/** A whole number of credits as written: digits only (991), at most what the balance could hold. */
function creditsField(value: string, field: string, signed: boolean): number {
  if (!(signed ? /^-?\d+$/ : /^\d+$/).test(value))
    throw new ApiError(991, `Amount must contain only digits: ${field} is "${value}"`);
  const n = Number(value);
  if (!Number.isSafeInteger(n))
    throw new ApiError(990, `Amount must be smaller than credit: ${field} ${value} is more than any balance`);
  return n;
}

/** Money in shekels (up to two decimals, signed) as agorot (991 otherwise). */
function moneyField(value: string, field: string): number {
  const negative = value.startsWith('-');
  const agorot = parseShekels(negative ? value.slice(1) : value);
  if (agorot === null || !Number.isSafeInteger(agorot))
    throw new ApiError(991, `Amount must contain only digits: ${field} is "${value}" (shekels, up to two decimals)`);
  return negative ? -agorot : agorot;
}

function shown(currency: Currency, amount: number): string {
  return currency === 'credits' ? `${amount} credits` : `${formatShekels(amount)} shekels`;
}

// Moves `amount` (signed: positive gives to the sub-account, negative takes back) or answers 990.
async function move(ctx: OperationContext, sub: Account, currency: Currency, amount: number): Promise<void> {
  if (amount === 0) return;
  const reseller = ctx.account;
  const give = amount > 0;
  const [from, to] = give ? [reseller, sub] : [sub, reseller];
  const moved = await transferBetweenAccounts(ctx.db, {
    fromId: from.id,
    toId: to.id,
    currency,
    amount: Math.abs(amount),
    now: ctx.now,
    reasons: give
      ? { from: `transfer: to sub-account ${sub.username}`, to: `transfer: from reseller ${reseller.username}` }
      : {
          from: `transfer: taken back by reseller ${reseller.username}`,
          to: `transfer: taken back from sub-account ${sub.username}`,
        },
  });
  if (!moved) {
    const side = give ? 'the reseller' : `the sub-account ${sub.username}`;
    throw new ApiError(
      990,
      `Amount must be smaller than credit: ${side} has less than ${shown(currency, Math.abs(amount))}`,
    );
  }
}

/**
 * Takes a new account's username for this transaction, or answers 994 when an account has it (in any case): two
 * requests for one name take turns (a lock per name), the second sees the first's account, not a clash. Every
 * account is created after it (addSub, and the operator's createAccount).
 */
export async function claimUsername(ctx: Pick<OperationContext, 'db'>, username: string): Promise<void> {
  await lockLimitScope(ctx.db, `username:${username.toLowerCase()}`);
  if (await usernameTaken(ctx.db, username)) throw new ApiError(994, `Username already exists: "${username}"`);
}

const newSubAccount = z.preprocess(
  first,
  z.object({
    name: text(),
    username: text(),
    password: rawText(),
    source: text(),
    amount: text(),
    otpPhone: optText(),
  }),
);

export const addSub = defineOperation({
  names: ['addSub'],
  reply: z.object({ username: str(), balance: str() }),
  input: z.object({ userDetails: newSubAccount }),
  resellerOnly: true,
  // argon2id takes tens of milliseconds: the password is hashed before the transaction (when it is valid).
  prepare: async ({ userDetails: d }) => (passwordProblem(d.password) ? undefined : hashPassword(d.password)),
  async handler(ctx, { userDetails: d }) {
    const usernameIssue = usernameProblem(d.username);
    if (usernameIssue) throw new ApiError(995, `Username length is invalid: ${usernameIssue}`);
    const passwordIssue = passwordProblem(d.password);
    if (passwordIssue) throw new ApiError(993, `Password length is invalid: ${passwordIssue}`);
    const nameLength = [...d.name].length;
    if (nameLength > MAX_NAME_CHARS)
      throw new ApiError(
        996,
        `Name length is invalid: name must be 1 to ${MAX_NAME_CHARS} characters, got ${nameLength}`,
      );
    const sourceIssue = sourceProblem(d.source);
    if (sourceIssue) throw new ApiError(992, `Source length is invalid: ${sourceIssue}`);
    const amount = creditsField(d.amount, 'userDetails.amount', false);
    let otpPhone: string | null = null;
    if (d.otpPhone !== undefined) {
      const n = normalizePhone(d.otpPhone, { allowInternational: true });
      if (!n.ok || n.type === 'landline')
        throw new ApiError(933, `Invalid phone number: userDetails.otpPhone "${d.otpPhone}" is not a mobile number`);
      otpPhone = n.e164;
    }
    await claimUsername(ctx, d.username);
    if (amount > Number(ctx.account.credits)) {
      throw new ApiError(
        990,
        `Amount must be smaller than credit: the reseller has ${ctx.account.credits} credits, asked to give ${amount}`,
      );
    }
    const id = await insertAccount(ctx.db, {
      username: d.username,
      name: d.name,
      passwordHash: typeof ctx.prepared === 'string' ? ctx.prepared : await hashPassword(d.password),
      isReseller: false,
      parentId: ctx.account.id,
      timeZone: ctx.account.time_zone,
      otpPhone,
      now: ctx.now,
    });
    const sub = await findAccountByUsername(ctx.db, d.username);
    await move(ctx, sub!, 'credits', amount);
    // The reseller vouches for its sub-account's sender, as it does for the account itself.
    await addVerifiedSender(ctx.db, id, d.source, 'reseller', ctx.now);
    return {
      status: 0,
      message: `Sub-account ${d.username} created with ${amount} credits`,
      username: d.username,
      balance: String(amount),
    };
  },
});

export const updateAmountSub = defineOperation({
  names: ['updateAmountSub'],
  idempotent: true,
  reply: z.object({ balance: str(), international_balance: str(SHEKELS) }),
  input: z
    .object({
      userDetails: z.preprocess(first, z.object({ username: text(), amount: optText(), amount_int: optText() })),
      amount: optText(),
      amount_int: optText(),
    })
    .transform((input, ctx) => {
      const credits = input.amount ?? input.userDetails.amount;
      const money = input.amount_int ?? input.userDetails.amount_int;
      if (credits === undefined && money === undefined) lateMissing(ctx, 'amount (credits) or amount_int (shekels)');
      return { username: input.userDetails.username, credits, money };
    }),
  resellerOnly: true,
  async handler(ctx, input) {
    const { username, credits, money } = input;
    const creditDelta = credits === undefined ? 0 : creditsField(credits, 'amount', true);
    const agorotDelta = money === undefined ? 0 : moneyField(money, 'amount_int');
    const sub = await findAccountByUsername(ctx.db, username);
    if (!sub || sub.parent_id !== ctx.account.id)
      throw new ApiError(503, `Username not exist in your account: "${username}" is not your sub-account`);
    await move(ctx, sub, 'credits', creditDelta);
    await move(ctx, sub, 'international', agorotDelta);
    const after = (await findAccountByUsername(ctx.db, username))!;
    const international = formatShekels(Number(after.intl_agorot));
    return {
      status: 0,
      message: `${username} now has ${after.credits} credits and ${international} shekels`,
      balance: String(after.credits),
      international_balance: international,
    };
  },
});

export const getBlanceSubs = defineOperation({
  names: ['getBlanceSubs'],
  reply: z.object({
    subs: z.array(z.object({ username: str(), name: str(), balance: str(), international_balance: str(SHEKELS) })),
  }),
  input: z.object({}),
  resellerOnly: true,
  readOnly: true,
  async handler(ctx) {
    const subs = await listSubAccounts(ctx.db, ctx.account.id);
    return {
      status: 0,
      message: subs.length === 1 ? '1 sub-account' : `${subs.length} sub-accounts`,
      subs: subs.map((s) => ({
        username: s.username,
        name: s.name,
        balance: String(s.credits),
        international_balance: formatShekels(s.intlAgorot),
      })),
    };
  },
});
