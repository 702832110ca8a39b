// The one operation runner, for the API and the console alike: operation lookup (997), authentication, the
// account acted for, the operation's flags (resellerOnly: 511, readOnly, prepare, sharesCommits), input
// validation (2), then the handler in one transaction (rolled back on error and for /api/test), an ApiError
// mapped to its reply, and the workers signalled after commit.
import type { z } from 'zod';
import type { Config } from '../config.ts';
import { ApiError, missingField } from '../domain/errors.ts';
import { statusMessage, type RequestStatus } from '../domain/status.ts';
import { authenticateToken, checkIpAllowed, refuseSuspended, resolveActingAccount } from './auth.ts';
import { authenticatePassword, type LegacyResult } from './legacy-auth.ts';
import { inTransaction, type Queryable, type Store, type Tx } from '../store/engine/db.ts';
import { shareWriteGroupReads } from '../store/engine/pg-group-commit.ts';
import { findAccountById, type Account } from '../store/accounts.ts';
import { firstIssue, textOf, userField } from './fields.ts';
import { findOperation, operationNames } from './index.ts';
import {
  IdempotencyGuard,
  idempotencyKeyOf,
  idempotencyShape,
  refuseMisspelledIdempotencyHeader,
  requestHash,
} from './idempotency.ts';
import { checkFieldNames, nearMiss, operationShape } from './near-miss.ts';
import { accountAuditState, auditedInput, type OperatorActor, recordAudit, refuseReadOnlyOperator } from './audit.ts';
import type { RouteTestAnswer, RouteTestQuestion } from '../domain/route-test.ts';
import type {
  Operation,
  OperationContext,
  OperationReply,
  OperatorOperation,
  Reply,
  RunVia,
  SendCoverage,
  Signals,
} from './types.ts';

export interface AppContext {
  store: Store;
  config: Config;
  signals: Signals;
  clock: () => number;
  onUnexpectedError(err: unknown, root: string): void;
  /** Told of every password-authenticated call (never the password): for the metric and the log. */
  onLegacyAuth?(username: string, result: LegacyResult): void;
  /** Told of keys far from every field of the operation (extras, accepted): for the log. */
  onUnknownFields?(account: Account, root: string, fields: string[]): void;
  /** Which channels have a carrier: a send none can take is refused at accept (5). */
  coverage?: SendCoverage;
  /** A configured carrier texts go to, if any (OperationContext.liveTextCarrier). */
  liveTextCarrier?: OperationContext['liveTextCarrier'];
  /** Which route and carriers a message would take (`yona admin route-test`; the form on /admin/routes). */
  routeTest?(question: RouteTestQuestion): Promise<RouteTestAnswer>;
  /**
   * The operator running operations with this context (the console at /admin, `yona admin`): each change it makes
   * writes one audit row in its transaction (audit.ts); a support operator's changes are refused (511).
   */
  operator?: OperatorActor;
}

export interface ApiRequest {
  root: string;
  doc: Record<string, unknown>;
  token: string | undefined;
  ip: string;
  dryRun: boolean;
  /** Came over TLS (directly, or through a trusted proxy that terminated it). */
  secure?: boolean;
  /** The `Idempotency-Key` header, when sent. */
  idempotencyKey?: string;
  /** The names of the headers sent, as sent (a near miss of `Idempotency-Key` among them is refused). */
  headerNames?: readonly string[];
}

class DryRunRollback extends Error {
  constructor(readonly reply: Reply) {
    super('dry-run rollback');
  }
}

/** An account authenticated before the run: by `user.password` (API), or by its console session. */
interface SignedIn {
  account: Account;
  /**
   * How the account signed in: its password on the API (legacy authentication, under the account's IP allowlist)
   * or a console session (where the allowlist is edited, so it does not govern it).
   */
  via: 'password' | 'console' | 'operator';
}

// The operator's hints of refused replies (ApiError.hint): kept beside the reply, never in it, for the log.
const hints = new WeakMap<Reply, string>();

function errorReply(err: ApiError): Reply {
  const reply: Reply = { status: err.status, message: err.message, ...err.extra };
  if (err.hint !== undefined) hints.set(reply, err.hint);
  return reply;
}

/** What the operator can do about a refused reply (logged with `api.refused`, never sent), if anything. */
export function refusalHint(reply: Reply): string | undefined {
  return hints.get(reply);
}

/** Answers one API request; never throws for expected outcomes (an unexpected error is reported and answers 998). */
export async function executeRequest(app: AppContext, req: ApiRequest): Promise<Reply> {
  try {
    return await execute(app, req);
  } catch (err) {
    if (err instanceof ApiError) return errorReply(err);
    app.onUnexpectedError(err, req.root);
    return { status: 998, message: statusMessage(998) };
  }
}

/**
 * Runs an operation (public or internal) for the account a console session signed in, exactly as the API would
 * run it for that account (same flags, validation, transaction, error replies and signals), so the console never
 * re-implements what the API does; `dryRun`: as /api/test runs it (the transaction rolled back). `via: 'operator'`
 * runs it for the operator's CLI on `account`, whatever the account's state (suspended accounts included). An
 * unexpected error is thrown (the console answers it with its error page).
 */
export async function runOperation<S extends z.ZodType, R extends z.ZodType>(
  app: AppContext,
  account: Account,
  op: Operation<S, R>,
  doc: Record<string, unknown>,
  o: { dryRun?: boolean; via?: Exclude<RunVia, 'api'> } = {},
): Promise<OperationReply<R>> {
  const req: ApiRequest = {
    root: op.names[0],
    doc: { ...doc, user: { username: account.username } },
    token: undefined,
    ip: '',
    dryRun: o.dryRun === true,
  };
  try {
    const reply = await runHandler(app, op as unknown as Operation<z.ZodType>, req, app.clock(), {
      account,
      via: o.via ?? 'console',
    });
    return reply as OperationReply<R>;
  } catch (err) {
    if (err instanceof ApiError) return errorReply(err) as OperationReply<R>;
    throw err;
  }
}

/**
 * Runs an operator's operation (`yona admin`, no account signed in): input validated as the API validates it
 * (2 otherwise), `prepare` before the transaction, the handler in one transaction, an ApiError as its reply and the
 * workers signalled after the commit. An unexpected error is thrown.
 */
export async function runForOperator<S extends z.ZodType, R extends z.ZodType>(
  app: AppContext,
  op: OperatorOperation<S, R>,
  doc: Record<string, unknown>,
): Promise<OperationReply<R>> {
  const pending = new Set<'dispatch' | 'push' | 'schedule'>();
  try {
    refuseReadOnlyOperator(app.operator, true);
    const input = parseInput(op as unknown as Operation, doc) as z.output<S>;
    const prepared = await op.prepare?.(input);
    const now = app.clock();
    const reply = await inTransaction(app.store.db, async (db) => {
      const before = app.operator ? await op.audit?.state?.(db, input) : undefined;
      const r = await op.handler(
        {
          db,
          config: app.config,
          now,
          prepared,
          signals: { notify: (t) => pending.add(t) },
          operator: app.operator,
        },
        input,
      );
      if (app.operator && r.status === 0) {
        const named = input as { name?: unknown; username?: unknown };
        await recordAudit(
          db,
          app.operator,
          {
            action: op.names[0],
            subject: op.audit?.subject?.(input) ?? String(named.username ?? named.name ?? ''),
            before: op.audit?.state ? before : null,
            after: op.audit?.state ? await op.audit.state(db, input) : auditedInput(input),
          },
          now,
        );
      }
      return r;
    });
    for (const topic of pending) app.signals.notify(topic);
    return reply as OperationReply<R>;
  } catch (err) {
    if (err instanceof ApiError) return errorReply(err) as OperationReply<R>;
    throw err;
  }
}

/** The account `username` names as `caller` may act for it (itself, or a reseller's sub-account), else undefined. */
export async function accountActedFor(
  app: AppContext,
  caller: Account,
  username: string,
): Promise<Account | undefined> {
  try {
    return await resolveActingAccount(app.store.db, caller, username);
  } catch (err) {
    if (err instanceof ApiError) return undefined;
    throw err;
  }
}

async function execute(app: AppContext, req: ApiRequest): Promise<Reply> {
  const op = findOperation(req.root);
  if (!op || op.internal) {
    const near = operationNames().find((name) => nearMiss(req.root, name));
    const fix = near === undefined ? '' : `; did you mean "${near}"?`;
    throw new ApiError(997, `Not a valid command sent: unknown operation "${req.root}"${fix}`);
  }
  refuseMisspelledIdempotencyHeader(op, req.headerNames);
  const now = app.clock();
  return runHandler(app, op, req, now, await passwordCaller(app, req, now));
}

// With no bearer token, `user.password` authenticates accounts that allow it (legacy-auth.ts); a token wins.
async function passwordCaller(app: AppContext, req: ApiRequest, now: number): Promise<SignedIn | undefined> {
  if (req.token) return undefined;
  const user = (Array.isArray(req.doc.user) ? req.doc.user[0] : req.doc.user) as Record<string, unknown> | undefined;
  const username = textOf(user?.username)?.trim();
  const password = textOf(user?.password);
  if (!username || password === undefined || password === '') return undefined;
  const account = await authenticatePassword(app.store.db, username, password, req.secure === true, now, (result) =>
    app.onLegacyAuth?.(username, result),
  );
  return { account, via: 'password' };
}

/** Who calls, for which account, with what input: 3, 10, 11, 511, 503 or 2 otherwise. */
async function authorize(
  db: Queryable,
  op: Operation,
  req: ApiRequest,
  now: number,
  signedIn?: SignedIn,
): Promise<{ who: Who; input: unknown; extras: string[] }> {
  // A writing operation reads a signed-in account again inside its transaction, as it would its token's.
  const caller =
    signedIn === undefined
      ? await authenticateToken(db, req.token, now)
      : op.readOnly
        ? signedIn.account
        : await accountById(db, signedIn.account.id);
  // The operator acts on an account whatever its state; a console session was refused at sign-in already.
  if (signedIn?.via !== 'operator') refuseSuspended(caller);
  if (signedIn === undefined || signedIn.via === 'password') await checkIpAllowed(db, caller, req.ip);
  const user = userField.safeParse(req.doc.user);
  if (!user.success) throw missingField('user.username');
  const account = await resolveActingAccount(db, caller, user.data.username);
  if (op.resellerOnly && !account.is_reseller) throw new ApiError(511);
  const extras = checkFieldNames(req.root, operationShape(op, idempotencyShape(op)), req.doc);
  const input = parseInput(op, req.doc);
  return {
    who: {
      caller,
      account,
      now,
      dryRun: req.dryRun,
      passwordAuthenticated: signedIn?.via === 'password',
      via: signedIn === undefined || signedIn.via === 'password' ? 'api' : signedIn.via,
    },
    input,
    extras,
  };
}

function parseInput(op: Operation, doc: Record<string, unknown>): unknown {
  const common = op.commonInput?.(doc);
  if (common !== undefined) return common;
  // reportInput: zod 4 leaves the offending value out of issues otherwise, and it tells missing from invalid.
  const parsed = op.input.safeParse(doc, { reportInput: true });
  if (parsed.success) return parsed.data;
  const issue = firstIssue(parsed.error.issues);
  const field = issue.path.join('.') || 'body';
  const custom = (issue as { params?: { status?: RequestStatus } }).params?.status;
  if (custom) throw new ApiError(custom, issue.message);
  const missing = issue.code === 'invalid_type' && (issue as { input?: unknown }).input === undefined;
  if (missing || (issue.code === 'too_small' && issue.origin === 'string')) {
    throw missingField(field);
  }
  throw new ApiError(2, `Invalid value for field ${field}: ${issue.message}`);
}

// The account a password or a console session authenticated (it may have been deleted since: 3).
async function accountById(db: Queryable, id: number): Promise<Account> {
  const account = await findAccountById(db, id);
  if (!account) throw new ApiError(3);
  return account;
}

interface Who {
  caller: Account;
  account: Account;
  now: number;
  dryRun: boolean;
  passwordAuthenticated: boolean;
  via: RunVia;
}

// Extras are listed in the /api/test reply and told to the log hook (which logs each once per account).
function withExtras(app: AppContext, req: ApiRequest, who: Who, extras: string[], reply: Reply): Reply {
  if (extras.length === 0) return reply;
  app.onUnknownFields?.(who.account, req.root, extras);
  return req.dryRun ? { ...reply, unknown_fields: extras } : reply;
}

/** Reads the state an operator's change shows in the audit log (the operation's own, or the account's). */
function auditState(op: Operation, db: Tx, input: unknown, account: Account): () => Promise<unknown> {
  const state = op.audit?.state;
  return state ? () => state(db, input, account) : () => accountAuditState(db, account.id);
}

// A writing operation authorizes inside its own transaction: the token and account it reads are those it
// writes against, and on the embedded store those reads run inside the group's open transaction.
async function runHandler(
  app: AppContext,
  op: Operation<z.ZodType>,
  req: ApiRequest,
  now: number,
  signedIn?: SignedIn,
): Promise<Reply> {
  const { store, config } = app;
  const pending = new Set<'dispatch' | 'push' | 'schedule'>();
  const signals: Signals = { notify: (topic) => pending.add(topic) };
  let prepared: unknown;
  const context = (db: OperationContext['db'], who: Who): OperationContext => ({
    db,
    config,
    signals,
    prepared,
    coverage: app.coverage,
    prices: store.priceCache,
    liveTextCarrier: app.liveTextCarrier,
    operator: app.operator,
    ...who,
  });
  refuseReadOnlyOperator(app.operator, !op.readOnly && !req.dryRun);
  if (op.readOnly) {
    const { who, input, extras } = await authorize(store.db, op, req, now, signedIn);
    return withExtras(app, req, who, extras, await op.handler(context(store.db, who), input));
  }
  if (op.prepare && (op.preparesFor?.(req.doc) ?? true)) {
    // Authorized first (outside the transaction, which authorizes again), so nobody unknown makes it work.
    const { input } = await authorize(store.db, op, req, now, signedIn);
    prepared = await op.prepare(input);
  }
  const key = req.dryRun ? undefined : idempotencyKeyOf(op, req.idempotencyKey, req.doc);
  const guard = key === undefined ? undefined : new IdempotencyGuard(key, requestHash(req.root, req.doc), now);
  let accountId: number | undefined;
  try {
    const work = async (trx: Tx) => {
      if (op.sharesCommits && !req.dryRun) shareWriteGroupReads(trx);
      const { who, input, extras } = await authorize(trx, op, req, now, signedIn);
      accountId = who.account.id;
      const earlier = await guard?.claim(trx, accountId);
      if (earlier) return earlier;
      const audited = app.operator && !req.dryRun ? auditState(op, trx, input, who.account) : undefined;
      const before = await audited?.();
      const r = withExtras(app, req, who, extras, await op.handler(context(trx, who), input));
      if (req.dryRun) throw new DryRunRollback(r);
      if (audited && app.operator && (op.successStatuses ?? [0]).includes(r.status)) {
        const subject = op.audit?.subject?.(input, who.account) ?? who.account.username;
        const after = await audited();
        await recordAudit(trx, app.operator, { action: op.names[0], subject, before, after }, now);
      }
      await guard?.save(trx, accountId, r);
      return r;
    };
    // A keyed send runs in a transaction of its own: a retry waits at its claim for the first to end.
    const grouped = op.sharesCommits && !req.dryRun && !guard ? store.sendGroups : undefined;
    const reply = await (grouped ? grouped.run(work) : inTransaction(store.db, work));
    for (const topic of pending) app.signals.notify(topic);
    return reply;
  } catch (err) {
    if (err instanceof DryRunRollback) return err.reply;
    if (guard && err instanceof ApiError) await guard.refused(store.db, accountId, err);
    throw err;
  }
}
