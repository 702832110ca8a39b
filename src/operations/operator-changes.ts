// The operator's changes to one account, as internal operations (run by `yona admin` and the console at /admin
// through runOperation with `via: 'operator'`, whatever the account's state): credit or debit with a reason (the
// ledger entry names the operator), suspend and resume, close, one-time codes abroad, password authentication, a
// verified sender. Each is audited by the runner (operations/audit.ts) with the account's settings before and after.
import { z } from 'zod';
import { sourceProblem } from '../domain/accounts.ts';
import { ApiError } from '../domain/errors.ts';
import { statusMessage } from '../domain/status.ts';
import { findAccountById, setLegacyPassword, setOtpInternational } from '../store/accounts.ts';
import { applyLedgerChange } from '../store/ledger.ts';
import {
  clearOperatorSuspension,
  closeAccountRow,
  futureScheduledCampaigns,
  openSubAccounts,
  setOperatorSuspension,
} from '../store/operator-accounts.ts';
import { addVerifiedSender } from '../store/senders.ts';
import { defineOperation, type OperationContext } from './types.ts';

/** The longest reason kept with a suspension or a credit. */
export const MAX_REASON_LENGTH = 500;
/** The most credits one credit or debit may move. */
export const MAX_CREDIT = 1_000_000_000_000;

/** A refusal of the operator's: status 2 with the reason as its message (the CLI exits 2 with it). */
const refuse = (message: string): never => {
  throw new ApiError(2, message);
};

function reasonText(reason: string | undefined, required: boolean): string | null {
  const text = reason?.trim() ?? '';
  if (text === '') return required ? refuse('a reason is required (--reason "...")') : null;
  if (text.length > MAX_REASON_LENGTH) refuse(`the reason is longer than ${MAX_REASON_LENGTH} characters`);
  return text;
}

/** Who the ledger names for an operator's entry: `operator NAME` (the CLI's: the system user or `cli`). */
const operatorLabel = (ctx: OperationContext) => `operator ${ctx.operator?.name ?? 'cli'}`;

const ok = { status: 0 as const, message: statusMessage(0) };

/** Adds (positive) or takes (negative) credits with a reason; a debit past the balance is refused (balances stay >= 0). */
export const creditAccount = defineOperation({
  names: ['creditAccount'],
  internal: true,
  input: z.object({ amount: z.number().int(), reason: z.string().optional() }),
  reply: z.object({ credits: z.number() }),
  async handler(ctx, { amount, reason }) {
    const why = reasonText(reason, true) as string;
    if (amount === 0 || Math.abs(amount) > MAX_CREDIT)
      refuse(`N must be a whole number other than 0, at most ${MAX_CREDIT} either way`);
    const applied = await applyLedgerChange(ctx.db, {
      accountId: ctx.account.id,
      currency: 'credits',
      amount,
      reason: `${operatorLabel(ctx)}: ${why}`,
      refType: 'operator',
      now: ctx.now,
    });
    const after = await findAccountById(ctx.db, ctx.account.id);
    if (!applied)
      refuse(
        `${ctx.account.username} has ${after?.credits} credits: a debit of ${-amount} would take the balance below zero`,
      );
    return { ...ok, credits: Number(after?.credits ?? 0) };
  },
});

/**
 * Suspends an account: its API tokens and password, console sign-in and sessions, and new sends are refused (511)
 * until resumed. Over a reseller's suspension it becomes the operator's.
 */
export const suspendAccount = defineOperation({
  names: ['suspendAccount'],
  internal: true,
  input: z.object({ reason: z.string().optional() }),
  reply: z.object({}),
  async handler(ctx, { reason }) {
    const why = reasonText(reason, false);
    if (ctx.account.closed_at != null) refuse(`${ctx.account.username} is closed`);
    await setOperatorSuspension(ctx.db, ctx.account.id, why, ctx.now);
    return ok;
  },
});

/** Lifts the operator's suspension (a reseller's own stays: the reseller lifts it). */
export const resumeAccount = defineOperation({
  names: ['resumeAccount'],
  internal: true,
  input: z.object({}),
  reply: z.object({}),
  async handler(ctx) {
    const { username } = ctx.account;
    if (ctx.account.closed_at != null) refuse(`${username} is closed; a closed account is not resumed`);
    if (!(await clearOperatorSuspension(ctx.db, ctx.account.id)))
      refuse(
        ctx.account.suspended_at != null
          ? `${username} is suspended by its reseller, not by the operator; the reseller resumes it`
          : `${username} is not suspended`,
      );
    return ok;
  },
});

/**
 * Closes an account: refused while it has open sub-accounts or campaigns scheduled for later; otherwise its tokens
 * and console sessions are revoked and it is refused everywhere. Its data stays.
 */
export const closeAccount = defineOperation({
  names: ['closeAccount'],
  internal: true,
  input: z.object({}),
  reply: z.object({ tokens: z.number() }),
  async handler(ctx) {
    const { username, id } = ctx.account;
    if (ctx.account.closed_at != null) refuse(`${username} is already closed`);
    const subs = await openSubAccounts(ctx.db, id);
    if (subs.length > 0) {
      const shown = subs.slice(0, 5).join(', ') + (subs.length > 5 ? `, ... (${subs.length})` : '');
      refuse(`${username} has sub-accounts (${shown}): close them first`);
    }
    const scheduled = await futureScheduledCampaigns(ctx.db, id, ctx.now);
    if (scheduled > 0)
      refuse(
        `${username} has ${scheduled} scheduled campaign${scheduled === 1 ? '' : 's'} still to go out: cancel ${scheduled === 1 ? 'it' : 'them'} first`,
      );
    return { ...ok, tokens: await closeAccountRow(ctx.db, id, ctx.now) };
  },
});

/** Whether send_otp may go to international numbers. */
export const setOtpAbroad = defineOperation({
  names: ['setOtpInternational'],
  internal: true,
  input: z.object({ on: z.boolean() }),
  reply: z.object({}),
  async handler(ctx, { on }) {
    await setOtpInternational(ctx.db, ctx.account.id, on);
    return ok;
  },
});

/** Whether a call without a bearer token may authenticate with the account's password (over HTTPS only). */
export const setPasswordAuthentication = defineOperation({
  names: ['setLegacyPassword'],
  internal: true,
  input: z.object({ on: z.boolean() }),
  reply: z.object({}),
  async handler(ctx, { on }) {
    await setLegacyPassword(ctx.db, ctx.account.id, on);
    return ok;
  },
});

/** A sender name (or number) the account may send from, verified by the operator. */
export const verifySender = defineOperation({
  names: ['verifySender'],
  internal: true,
  input: z.object({ source: z.string() }),
  reply: z.object({}),
  audit: { subject: (i, account) => `${account?.username ?? ''} sender ${i.source}` },
  async handler(ctx, { source }) {
    const problem = sourceProblem(source);
    if (problem) refuse(problem);
    await addVerifiedSender(ctx.db, ctx.account.id, source, 'operator', ctx.now);
    return ok;
  },
});
