// The operator's account listing and a push setting per account, for `yona admin` and the operator console. The
// operator's changes to an account (credit, suspend, resume, close, ...) are internal operations in
// operator-changes.ts, run through the runner and audited. A refusal here is an OperatorRefusal whose message says
// why (the CLI exits 2 with it).
import { accountState, type AccountState } from '../domain/accounts.ts';
import { findAccountByUsername, type Account } from '../store/accounts.ts';
import { inTransaction, type Db, type Queryable } from '../store/engine/db.ts';
import { listAccountsForOperator, setPushAllowPrivate } from '../store/operator-accounts.ts';

/** An operator's action refused, and why. */
export class OperatorRefusal extends Error {}

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

/** Lets one account's push URLs reach private and loopback addresses (or stops it), beside the server-wide setting. */
export async function setAccountPushAllowPrivate(db: Db, username: string, allowed: boolean): Promise<void> {
  await inTransaction(db, async (trx) => setPushAllowPrivate(trx, (await target(trx, username)).id, allowed));
}
