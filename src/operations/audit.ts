// The audit of operators' changes: every operation an operator runs (from the console at /admin, or `yona admin`)
// and that changes something writes one row of the audit log in the operation's own transaction (so the change
// and its row commit together or not at all): who, from where, which operation, on what, the state before and
// after. The runner (execute.ts) does it for every operation run with an operator in its AppContext; an
// operation says what its subject is and what state to show (`audit` in types.ts), else the account acted on and
// its operator-visible settings. A support operator's run of any writing operation is refused (511) here.
import { ApiError } from '../domain/errors.ts';
import { accountAuditRow, appendAudit } from '../store/audit.ts';
import type { Queryable } from '../store/engine/db.ts';

/** Who acts: an operator signed in at /admin, or `yona admin` (its name: the system user's, or `cli`). */
export interface OperatorActor {
  name: string;
  role: 'admin' | 'support';
  via: 'console' | 'cli';
  /** The client address (`local` for the CLI). */
  address: string;
}

/** One change to record: the operation's name, what it acted on and the states around it. */
export interface AuditChange {
  action: string;
  subject: string;
  before: unknown;
  after: unknown;
}

/** Input fields never written to the audit log (their presence is, as "(hidden)"). */
const SECRET_FIELDS = /password|secret|token|code/i;

/** The input of an operation as the audit log keeps it: secrets replaced. */
export function auditedInput(input: unknown): unknown {
  if (Array.isArray(input)) return input.map(auditedInput);
  if (input === null || typeof input !== 'object') return input;
  return Object.fromEntries(
    Object.entries(input as Record<string, unknown>).map(([k, v]) => [
      k,
      SECRET_FIELDS.test(k) && v !== undefined && v !== null && v !== '' ? '(hidden)' : auditedInput(v),
    ]),
  );
}

const asJson = (v: unknown): string | null => (v === undefined || v === null ? null : JSON.stringify(v));

/** Writes one audit row for `actor`'s change, in `db` (the change's transaction). */
export async function recordAudit(
  db: Queryable,
  actor: OperatorActor,
  change: AuditChange,
  now: number,
): Promise<void> {
  await appendAudit(db, {
    at: now,
    operator: actor.name,
    via: actor.via,
    address: actor.address,
    action: change.action,
    subject: change.subject,
    before: asJson(change.before),
    after: asJson(change.after),
  });
}

/** Refuses a support operator's change (511): support reads everything and changes nothing. */
export function refuseReadOnlyOperator(actor: OperatorActor | undefined, writes: boolean): void {
  if (actor?.role === 'support' && writes) throw new ApiError(511);
}

/** What the operator sees of an account, before and after a change to it. */
export async function accountAuditState(db: Queryable, accountId: number): Promise<unknown> {
  return accountAuditRow(db, accountId);
}
