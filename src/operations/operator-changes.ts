// The operator's changes to one account, as internal operations (run by `yona admin` and the console at /admin
// through runOperation with `via: 'operator'`, whatever the account's state): credit or debit with a reason (the
// ledger entry names the operator), suspend and resume, close, one-time codes abroad, password authentication, a
// verified sender, push URLs to private addresses, an inbound number; and, acting on no one account, phones added
// to the registry of filtered phones. Each is audited by the runner (operations/audit.ts) with the account's settings before and after.
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
import { addAccountNumber, findNumberOwner } from '../store/carriers.ts';
import type { Queryable } from '../store/engine/db.ts';
import { addFilteredPhones, filteredAmong } from '../store/filtered-phones.ts';
import { setPushAllowPrivate } from '../store/operator-accounts.ts';
import { normalizeNumber } from '../domain/inbound-number.ts';
import { normalizePhone } from '../domain/phone.ts';
import { defineOperation, type OperationContext, type OperatorOperation } from './types.ts';

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

/** Whether the account's push URLs may reach private and loopback addresses (beside YONA_PUSH_ALLOW_PRIVATE). */
export const setPushPrivateAddresses = defineOperation({
  names: ['setPushAllowPrivate'],
  internal: true,
  input: z.object({ on: z.boolean() }),
  reply: z.object({}),
  async handler(ctx, { on }) {
    await setPushAllowPrivate(ctx.db, ctx.account.id, on);
    return ok;
  },
});

/** Who an inbound number belongs to, as the audit log shows it. */
async function numberOwner(db: Queryable, number: string): Promise<unknown> {
  const owner = await findNumberOwner(db, normalizeNumber(number));
  if (owner === undefined) return null;
  return { account: (await findAccountById(db, owner))?.username ?? null };
}

/** Gives the account an inbound number (a phone or a short code): SMS to it show in its `incoming` and push feed. */
export const addInboundNumber = defineOperation({
  names: ['addAccountNumber'],
  internal: true,
  input: z.object({ number: z.string() }),
  reply: z.object({ number: z.string() }),
  audit: {
    subject: (i, account) => `${account?.username ?? ''} number ${normalizeNumber(i.number)}`,
    state: (db, i) => numberOwner(db, i.number),
  },
  async handler(ctx, { number: raw }) {
    const number = normalizeNumber(raw);
    if (!/^\d{3,15}$/.test(number)) refuse(`NUMBER must be a phone number or short code, got "${raw}"`);
    if (!(await addAccountNumber(ctx.db, ctx.account.id, number, ctx.now)))
      refuse(`number ${number} already belongs to another account`);
    return { ...ok, number };
  },
});

/** The phones, in international form (a phone that is not one refuses the whole list, naming it). */
function filteredPhoneList(raw: string[]): string[] {
  return raw.map((p) => {
    const n = normalizePhone(p, { allowInternational: true });
    return n.ok ? n.e164 : refuse(`not a phone number: "${p}"`);
  });
}

/** How many of the phones the registry holds, and the first of them, as the audit log shows it. */
async function filteredState(db: Queryable, phones: string[]): Promise<unknown> {
  const known = [...(await filteredAmong(db, [...new Set(phones)]))].sort();
  return { filtered: known.length, phones: known.slice(0, AUDITED_PHONES) };
}

/** The most phones of one change the audit log lists (their count is always there). */
const AUDITED_PHONES = 100;

const filteredInput = z.object({ phones: z.array(z.string()).min(1).max(1_000_000) });

/** Adds phones to the registry of filtered (Kosher) phones: a voice send of type 2 calls them instead of texting. */
export const addFilteredPhoneList: OperatorOperation<typeof filteredInput, z.ZodObject<{ added: z.ZodNumber }>> = {
  names: ['addFilteredPhones'],
  internal: true,
  input: filteredInput,
  reply: z.object({ added: z.number() }),
  audit: {
    subject: (i) => `filtered phones (${i.phones.length})`,
    state: async (db, i) => {
      const phones = i.phones.flatMap((p) => {
        const n = normalizePhone(p, { allowInternational: true });
        return n.ok ? [n.e164] : [];
      });
      return filteredState(db, phones);
    },
  },
  async handler(ctx, { phones }) {
    const added = await addFilteredPhones(ctx.db, filteredPhoneList(phones), 'operator', ctx.now);
    return { ...ok, added };
  },
};
