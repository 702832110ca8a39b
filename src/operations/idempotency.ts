// Idempotent sends: a request to an operation declared `idempotent` (sms, bulk, send_otp, updateAmountSub) carrying an `Idempotency-Key` header (or an
// `idempotency_key` field, for XML clients that cannot set headers) runs once per account and key within a day.
// The key is claimed and the reply written in the operation's own transaction, so a send, its key and its reply
// commit together or not at all. The same key again returns the first reply and does nothing more, also while the
// first request still runs (the retry waits for it) or ran on another node; the same key with a different request
// is refused with status 2. A request that fails unexpectedly (998), or whose node dies, leaves no key behind.
import { createHash } from 'node:crypto';
import { ApiError } from '../domain/errors.ts';
import type { Queryable } from '../store/engine/db.ts';
import {
  claimIdempotencyKey,
  dropExpiredIdempotencyKey,
  findIdempotencyKey,
  IDEMPOTENCY_WINDOW_MS,
  recordIdempotentRefusal,
  saveIdempotentReply,
} from '../store/idempotency.ts';
import { textOf } from './fields.ts';
import { nearMiss, type Shape } from './near-miss.ts';
import type { Operation, Reply } from './types.ts';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const IDEMPOTENCY_FIELD = 'idempotency_key';
const MAX_KEY_LENGTH = 255;

/** Whether the operation takes an idempotency key (it says so: `idempotent`). */
export function takesIdempotencyKey(op: Pick<Operation, 'idempotent'>): boolean {
  return op.idempotent === true;
}

/** What a key is, for the API document. */
export const IDEMPOTENCY_DESCRIPTION =
  'Makes the call safe to retry: the same key from the same account within 24 hours answers the first reply and does nothing more (also while the first still runs, or ran on another node); the same key with a different request answers status 2. 1 to 255 printable ASCII characters. Sent as the `Idempotency-Key` header, or as this field by clients that cannot set headers.';

/** The extra field the idempotent operations take (for the field-name check). */
export function idempotencyShape(op: Pick<Operation, 'idempotent'>): Shape {
  return takesIdempotencyKey(op) ? { [IDEMPOTENCY_FIELD]: undefined } : {};
}

/** The request's key: the header, else the field; undefined when none (or the operation takes none). */
export function idempotencyKeyOf(
  op: Pick<Operation, 'idempotent'>,
  header: string | undefined,
  doc: Record<string, unknown>,
): string | undefined {
  if (op.idempotent !== true) return undefined;
  const key = header ?? textOf(doc[IDEMPOTENCY_FIELD]);
  if (key === undefined) return undefined;
  if (key === '' || key.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    throw new ApiError(
      2,
      `Invalid value for field Idempotency-Key: 1 to ${MAX_KEY_LENGTH} printable ASCII characters without spaces`,
    );
  }
  return key;
}

/**
 * Refuses (2) a header that nearly spells `Idempotency-Key` (`Idempotency-Kay`, `Idempotency_Key`,
 * `X-Idempotency-Key`) on an operation that takes a key, as a near miss of a field is refused: ignored, it would
 * let a retry send twice.
 */
export function refuseMisspelledIdempotencyHeader(
  op: Pick<Operation, 'idempotent'>,
  headerNames: readonly string[] | undefined,
): void {
  if (headerNames === undefined || op.idempotent !== true) return;
  for (const name of headerNames) {
    if (misspellsIdempotencyHeader(name))
      throw new ApiError(2, `unknown header "${name}"; did you mean "Idempotency-Key"?`);
  }
}

// Clients send the same few header names on every request: each name's answer is kept (up to a bound, so odd
// names cannot grow it), which takes the edit distance off the send's path.
const headerVerdicts = new Map<string, boolean>();
const MAX_HEADER_VERDICTS = 1000;

function misspellsIdempotencyHeader(name: string): boolean {
  const known = headerVerdicts.get(name);
  if (known !== undefined) return known;
  const lower = name.toLowerCase();
  const verdict = lower !== IDEMPOTENCY_HEADER && nearMiss(lower, IDEMPOTENCY_HEADER);
  if (headerVerdicts.size < MAX_HEADER_VERDICTS) headerVerdicts.set(name, verdict);
  return verdict;
}

/**
 * What a request is, for telling a retry from a different request under the same key. The document walked is one
 * the codec's shape limits accepted (at most 64 levels deep), so the recursion below is bounded.
 */
export function requestHash(root: string, doc: Record<string, unknown>): string {
  const { [IDEMPOTENCY_FIELD]: _key, ...rest } = doc;
  return createHash('sha256').update(root).update('\0').update(canonicalJson(rest)).digest('base64url');
}

// A one-element array is its element: XML cannot tell `<phone>` once from a list of one, so the JSON request
// `"phone": ["050..."]` and its XML form are the same request.
function canonicalJson(value: unknown): string {
  if (Array.isArray(value) && value.length === 1) return canonicalJson(value[0]);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * One keyed request. The key is claimed inside the operation's transaction, first thing after authorization, and
 * the reply written there too: a concurrent request with the key waits at its own claim (on PostgreSQL the unique
 * key holds it until the first transaction ends; SQLite runs one writer at a time) and then finds the reply. A
 * first request that fails or whose node dies mid-way rolls its claim back with everything else, so a retry runs.
 */
export class IdempotencyGuard {
  private claimed = false;

  constructor(
    private readonly key: string,
    private readonly hash: string,
    private readonly now: number,
  ) {}

  /** Claims the key for this request, or answers the reply of the request that holds it. */
  async claim(trx: Queryable, accountId: number): Promise<Reply | undefined> {
    this.claimed = false;
    for (;;) {
      if (await claimIdempotencyKey(trx, accountId, this.key, this.hash, this.now)) {
        this.claimed = true;
        return undefined;
      }
      const found = await findIdempotencyKey(trx, accountId, this.key);
      if (!found) continue; // swept between the two statements
      if (found.createdAt <= this.now - IDEMPOTENCY_WINDOW_MS) {
        await dropExpiredIdempotencyKey(trx, accountId, this.key, found.createdAt);
        continue;
      }
      if (found.requestHash !== this.hash) {
        throw new ApiError(
          2,
          `Idempotency-Key "${this.key}" was used for a different request in the last 24 hours: use a new key for a new request`,
        );
      }
      if (found.reply !== null) return JSON.parse(found.reply) as Reply;
      // A claim without its reply is seen only inside the claiming transaction, which never asks twice.
      throw new Error(`idempotency key "${this.key}" claimed without a reply`);
    }
  }

  /** Writes the reply beside the claim, in the same transaction. */
  async save(trx: Queryable, accountId: number, reply: Reply): Promise<void> {
    await saveIdempotentReply(trx, accountId, this.key, JSON.stringify(reply));
  }

  /**
   * A refusal by the operation once it held the key (its transaction rolled back) is the key's first reply too:
   * kept in a statement of its own. A refusal before the claim (authentication, input) keeps no key.
   */
  async refused(db: Queryable, accountId: number | undefined, err: ApiError): Promise<void> {
    if (!this.claimed || accountId === undefined) return;
    const reply: Reply = { status: err.status, message: err.message, ...err.extra };
    await recordIdempotentRefusal(db, accountId, this.key, this.hash, JSON.stringify(reply), this.now);
  }
}
