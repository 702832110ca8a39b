// The operator's account listing, for `yona admin` and the operator console. The
// operator's changes to an account (credit, suspend, resume, close, ...) are internal operations in
// operator-changes.ts, run through the runner and audited. A refusal here is an OperatorRefusal whose message says
// why (the CLI exits 2 with it).
import { accountState, type AccountState } from '../domain/accounts.ts';
import type { Queryable } from '../store/engine/db.ts';
import { listAccountsForOperator } from '../store/operator-accounts.ts';

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
