// What an operation is: root element name(s), input schema, permission and a handler (ctx, input) -> reply.
import type { z } from 'zod';
import type { Config } from '../config.ts';
import type { Account } from '../store/accounts.ts';
import type { Queryable } from '../store/engine/db.ts';
import type { SendPriceCache } from '../store/price-cache.ts';
import type { ChannelName } from '../domain/channels.ts';
import type { RequestStatus } from '../domain/status.ts';
import type { Signals } from '../signals.ts';
import type { OperatorActor } from './audit.ts';
/** An operation's reply: `status` and the fields of its encoding-neutral document. */
export type Reply = Record<string, unknown> & { status: RequestStatus };

export type { Signals } from '../signals.ts';

/** Known fields of an object: each with its own shape, or undefined for a value whose inside is not checked. */
export type Shape = { readonly [field: string]: Shape | undefined };

/** Who ran an operation: an API request, a console session (its own sign-in checks done) or the operator's CLI. */
export type RunVia = 'api' | 'console' | 'operator';

/** What a handler answers: `status`, `message` and the fields its operation's `reply` schema declares. */
export type ReplyTo<R extends z.ZodType> = ReplyFields<z.input<R>> & { status: RequestStatus; message: string };
// An empty reply schema's type is a record of nothing, which would refuse `status` and `message`.
type ReplyFields<T> = string extends keyof T ? unknown : T;

/** What a send goes out on (a channel of domain/channels.ts): texts over SMS carriers, calls over voice trunks. */
export type SendChannel = ChannelName;

/** Which channels have a carrier to take a send (the node's view of the configured carriers, kept fresh). */
export interface SendCoverage {
  /** Undefined when a carrier (or a bundled simulator) takes this channel's sends; else why none does. */
  unserved(channel: SendChannel): string | undefined;
  /** Told of a send refused for it (for the log). */
  refused(channel: SendChannel, account: string, why: string): void;
}

export interface OperationContext {
  /** The transaction the whole handler runs in (rolled back on error and in dry-run). */
  db: Queryable;
  /** The account the call acts for (`user.username`). */
  account: Account;
  /** The account the token belongs to (a reseller when acting for a sub-account). */
  caller: Account;
  now: number;
  dryRun: boolean;
  /** The call authenticated with `user.password` (legacy-auth.ts), not a bearer token or the console. */
  passwordAuthenticated?: boolean;
  /** Where the call came from, when not the API (a blocklist row records it as its source). */
  via?: RunVia;
  /** The operator running it (the console at /admin, `yona admin`), when one does. */
  operator?: OperatorActor;
  config: Config;
  signals: Signals;
  /** What the operation's `prepare` gave, worked out before the transaction (undefined without one). */
  prepared?: unknown;
  /** The store's prices kept in memory (the embedded store's); without it a send reads them. */
  prices?: SendPriceCache;
  /** Which channels can take a send now; without it (tests, tools) every channel can. */
  coverage?: SendCoverage;
  /** A configured carrier texts go to, undefined when they go only to the bundled simulator (public-links.ts). */
  liveTextCarrier?: (db: Queryable) => Promise<string | undefined>;
}

export interface Operation<S extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  /** Root element names (aliases like dlrbyDate/dlrByDate share one operation). */
  names: readonly string[];
  /** Schema of the root element's content, without `user`. */
  input: S;
  /**
   * The fields of its success reply beside `status` and `message`: the type of what its handler answers, and the
   * reply schema of the API document.
   */
  reply: R;
  /**
   * The input read without the schema for the operation's most common shape, exactly as `input` reads it;
   * undefined for any other document, which `input` reads (and words any error). The schema stays the rule.
   */
  commonInput?(doc: Record<string, unknown>): z.output<S> | undefined;
  /** The statuses of a call that worked, when not just 0 (addNumBL answers 946). */
  successStatuses?: readonly RequestStatus[];
  /**
   * Not part of the API: run by the console or the operator's CLI through the runner, never listed in the
   * operation table, /api or the API document.
   */
  internal?: boolean;
  /** A request may carry an `Idempotency-Key` (operations/idempotency.ts): a retry answers the first reply. */
  idempotent?: boolean;
  /**
   * The shapes of its fields read by hand (`lenient`), by field name, for the field-name check (near-miss.ts):
   * the schema holds no object shape for them.
   */
  shapes?: Readonly<Record<string, Shape>>;
  /** Only reseller accounts may call it (else 511). */
  resellerOnly?: boolean;
  /** Reads only: runs without a transaction. */
  readOnly?: boolean;
  /**
   * Writes no shared row but its account's balance (through the ledger): on PostgreSQL it may share its
   * transaction with concurrent requests of the same kind (store/engine/pg-group-commit.ts).
   */
  sharesCommits?: boolean;
  /**
   * Slow work on the input done before the handler's transaction opens, once the caller is authorized (hashing a
   * password): a transaction held open through it would make other writes wait. Its result is `ctx.prepared`.
   */
  prepare?(input: z.output<S>): Promise<unknown>;
  /**
   * Whether this request has work for `prepare`, read from its document before anything else (default: always). A
   * request without any skips the authorization that `prepare` needs first: an ordinary `sms` is authorized once.
   */
  preparesFor?(doc: Record<string, unknown>): boolean;
  /**
   * What the audit log shows when an operator runs it (operations/audit.ts): its subject (default: the account's
   * username) and the state read before and after the handler in its transaction (default: the account's
   * operator-visible settings).
   */
  audit?: OperationAudit<z.output<S>>;
  handler(ctx: OperationContext, input: z.output<S>): Promise<ReplyTo<R>>;
}

/** An operation's entry in the audit log: what it acted on, and the state around the change. */
export interface OperationAudit<I> {
  subject?(input: I, account?: Account): string;
  state?(db: Queryable, input: I, account?: Account): Promise<unknown>;
}

/** What an operator's operation runs with: no account signed in (`yona admin` acts on the store as the operator). */
export type OperatorContext = Pick<OperationContext, 'db' | 'config' | 'signals' | 'now' | 'prepared' | 'operator'>;

/**
 * An internal operation of the operator's own, acting on no one account (creating one): run by `runForOperator`
 * (operations/execute.ts) in one transaction, its input validated by its schema, refusals as replies.
 */
export interface OperatorOperation<S extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  names: readonly string[];
  internal: true;
  input: S;
  reply: R;
  /** Slow work on the input before the transaction opens (hashing a password): `ctx.prepared`. */
  prepare?(input: z.output<S>): Promise<unknown>;
  /** Its audit entry (default subject: the input's `username` or `name`; default state: none before, the input after). */
  audit?: OperationAudit<z.output<S>>;
  handler(ctx: OperatorContext, input: z.output<S>): Promise<ReplyTo<R>>;
}

/** What running `op` answers: its reply fields on success; on a refusal only `status` and `message`. */
export type OperationReply<R extends z.ZodType> =
  | ReplyTo<R>
  | ({ status: RequestStatus; message: string } & { [K in keyof ReplyFields<z.input<R>>]?: undefined });

/** Declares an operation with its input and reply types inferred from their schemas. */
export function defineOperation<S extends z.ZodType, R extends z.ZodType>(op: Operation<S, R>): Operation<S, R> {
  return op;
}
