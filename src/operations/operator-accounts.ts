// The operator's account actions, in one place for `yona admin` and the operator console: the listing, suspend
// and resume, close, credit (either sign, with a reason, in the ledger), and a push setting per account. Not in the
// API's operation table: the operator runs them on the store, and each runs in one transaction. A refusal is an
// OperatorRefusal whose message says why (the CLI exits 2 with it).
import { accountState, type AccountState } from '../domain/accounts.ts';
import { findAccountByUsername, type Account } from '../store/accounts.ts';
import { inTransaction, type Db, type Queryable } from '../store/engine/db.ts';
import { applyLedgerChange } from '../store/ledger.ts';
import {
  clearOperatorSuspension,
  closeAccountRow,
  futureScheduledCampaigns,
  listAccountsForOperator,
  openSubAccounts,
  setOperatorSuspension,
  setPushAllowPrivate,
} from '../store/operator-accounts.ts';

/** An operator's action refused, and why. */
export class OperatorRefusal extends Error {}

/** The longest reason kept with a suspension or a credit. */
export const MAX_REASON_LENGTH = 500;

/** One account of the operator's listing. */
export interface AccountSummary {
  username: string;
  name: string;
  credits: number;
  international_agorot: number;
  state: AccountState;
  /** Who suspended it, when suspended: 'operator' or 'reseller'. */
  suspended_by: 'operator' | 'reseller' | null;
  suspension_reason: string | null;
  is_reseller: boolean;
  /** Its reseller's username; null for the operator's own accounts. */
  reseller: string | null;
  /** Epoch ms of its newest accepted send; null: never sent. */
  last_activity: number | null;
}

/** Every account with its balance, state, reseller and last activity, by username. */
export async function listAccounts(db: Queryable): Promise<AccountSummary[]> {
  const rows = await listAccountsForOperator(db);
  return rows.map((r) => {
    const state = accountState({ suspended_at: r.suspendedAt, suspended_by: r.suspendedBy, closed_at: r.closedAt });
    return {
      username: r.username,
      name: r.name,
      credits: r.credits,
      international_agorot: r.intlAgorot,
      state,
      suspended_by: state === 'suspended' ? (r.suspendedBy === 'operator' ? 'operator' : 'reseller') : null,
      suspension_reason: state === 'suspended' ? r.suspensionReason : null,
      is_reseller: r.isReseller,
      reseller: r.reseller,
      last_activity: r.lastActivity,
    };
  });
}

async function target(db: Queryable, username: string): Promise<Account> {
  const found = await findAccountByUsername(db, username);
  if (!found) throw new OperatorRefusal(`no account named "${username}"`);
  return found;
}

function reasonText(reason: string | undefined, required: boolean): string | null {
  const text = reason?.trim() ?? '';
  if (text === '') {
    if (required) throw new OperatorRefusal('a reason is required (--reason "...")');
    return null;
  }
  if (text.length > MAX_REASON_LENGTH)
    throw new OperatorRefusal(`the reason is longer than ${MAX_REASON_LENGTH} characters`);
  return text;
}

/**
 * Suspends an account: its API tokens and password, its console sign-in and sessions (and an SMPP bind, which reads
 * the same hold) are refused with status 511 until `resumeAccount`. Over a reseller's suspension it becomes the
 * operator's; the reseller can no longer lift it.
 */
export async function suspendAccount(db: Db, username: string, reason: string | undefined, now: number) {
  const why = reasonText(reason, false);
  await inTransaction(db, async (trx) => {
    const account = await target(trx, username);
    if (account.closed_at != null) throw new OperatorRefusal(`${username} is closed`);
    await setOperatorSuspension(trx, account.id, why, now);
  });
}

/** Lifts the operator's suspension. A reseller's own suspension stays (the reseller lifts it from its console). */
export async function resumeAccount(db: Db, username: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    const account = await target(trx, username);
    if (account.closed_at != null) throw new OperatorRefusal(`${username} is closed; a closed account is not resumed`);
    if (await clearOperatorSuspension(trx, account.id)) return;
    throw new OperatorRefusal(
      account.suspended_at != null
        ? `${username} is suspended by its reseller, not by the operator; the reseller resumes it`
        : `${username} is not suspended`,
    );
  });
}

/**
 * Closes an account: refused while it has sub-accounts that are not closed, or campaigns scheduled for later (cancel
 * them first); otherwise its tokens and console sessions are revoked and it is refused everywhere from then on.
 * Its data (messages, ledger, contacts) stays, for retention to age out as any other.
 */
export async function closeAccount(db: Db, username: string, now: number): Promise<{ tokens: number }> {
  return inTransaction(db, async (trx) => {
    const account = await target(trx, username);
    if (account.closed_at != null) throw new OperatorRefusal(`${username} is already closed`);
    const subs = await openSubAccounts(trx, account.id);
    if (subs.length > 0) {
      const shown = subs.slice(0, 5).join(', ') + (subs.length > 5 ? `, ... (${subs.length})` : '');
      throw new OperatorRefusal(`${username} has sub-accounts (${shown}): close them first`);
    }
    const scheduled = await futureScheduledCampaigns(trx, account.id, now);
    if (scheduled > 0)
      throw new OperatorRefusal(
        `${username} has ${scheduled} scheduled campaign${scheduled === 1 ? '' : 's'} still to go out: cancel ${scheduled === 1 ? 'it' : 'them'} first`,
      );
    return { tokens: await closeAccountRow(trx, account.id, now) };
  });
}

/**
 * Adds (positive) or takes (negative) credits, written to the ledger with the operator's reason. A debit larger than
 * the balance is refused and changes nothing: balances never go below zero. Returns the balance after.
 */
export async function creditAccount(
  db: Db,
  username: string,
  amount: number,
  reason: string | undefined,
  now: number,
): Promise<{ credits: number }> {
  const why = reasonText(reason, true) as string;
  if (!Number.isSafeInteger(amount) || amount === 0) throw new OperatorRefusal('N must be a whole number other than 0');
  return inTransaction(db, async (trx) => {
    const account = await target(trx, username);
    const applied = await applyLedgerChange(trx, {
      accountId: account.id,
      currency: 'credits',
      amount,
      reason: `operator: ${why}`,
      refType: 'operator',
      now,
    });
    const after = await target(trx, username);
    if (!applied)
      throw new OperatorRefusal(
        `${username} has ${after.credits} credits: a debit of ${-amount} would take the balance below zero`,
      );
    return { credits: Number(after.credits) };
  });
}

/** Lets one account's push URLs reach private and loopback addresses (or stops it), beside the server-wide setting. */
export async function setAccountPushAllowPrivate(db: Db, username: string, allowed: boolean): Promise<void> {
  await inTransaction(db, async (trx) => setPushAllowPrivate(trx, (await target(trx, username)).id, allowed));
}
