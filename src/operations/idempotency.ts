// Idempotent sends: a request to sms, bulk, send_otp or updateAmountSub carrying an `Idempotency-Key` header (or an
// `idempotency_key` field, for XML clients that cannot set headers) runs once per account and key within a day.
// The key is claimed in the store before the operation runs; the reply is written in the operation's own
// transaction, so a send and its reply commit together. The same key again returns the first reply and does
// nothing more, also while the first request still runs (the retry waits for it) or ran on another node; the
// same key with a different request is refused with status 2. A request that fails unexpectedly (998) gives its
// key up; a claim left by a node that stopped mid-request is taken over once it is older than any request runs.
import { createHash } from 'node:crypto';
import { ApiError } from '../domain/errors.ts';
import type { Queryable } from '../store/db.ts';
import {
  claimIdempotencyKey,
  dropExpiredIdempotencyKey,
  findIdempotencyKey,
  IDEMPOTENCY_WINDOW_MS,
  releaseIdempotencyKey,
  saveIdempotentReply,
  takeOverIdempotencyKey,
} from '../store/idempotency.ts';
import { textOf } from './fields.ts';
import type { Shape } from './near-miss.ts';
import type { Reply } from './types.ts';

/** The operations a key makes safe to retry. */
const IDEMPOTENT_OPERATIONS = new Set(['sms', 'bulk', 'send_otp', 'updateAmountSub']);
export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const IDEMPOTENCY_FIELD = 'idempotency_key';
const MAX_KEY_LENGTH = 255;
/** A claim without a reply older than this belongs to a request that will never finish. */
const ABANDONED_MS = 120_000;
/** How long a retry waits for the first request to finish before answering that it still runs. */
const WAIT_MS = 60_000;
const POLL_MS = 50;

/** Whether the operation takes an idempotency key. */
export function takesIdempotencyKey(root: string): boolean {
  return IDEMPOTENT_OPERATIONS.has(root);
}

/** What a key is, for the API document. */
export const IDEMPOTENCY_DESCRIPTION =
  'Makes the call safe to retry: the same key from the same account within 24 hours answers the first reply and does nothing more (also while the first still runs, or ran on another node); the same key with a different request answers status 2. 1 to 255 printable ASCII characters. Sent as the `Idempotency-Key` header, or as this field by clients that cannot set headers.';

/** The extra field the idempotent operations take (for the field-name check). */
export function idempotencyShape(root: string): Shape {
  return takesIdempotencyKey(root) ? { [IDEMPOTENCY_FIELD]: undefined } : {};
}

/** The request's key: the header, else the field; undefined when none (or the operation takes none). */
export function idempotencyKeyOf(
  root: string,
  header: string | undefined,
  doc: Record<string, unknown>,
): string | undefined {
  if (!IDEMPOTENT_OPERATIONS.has(root)) return undefined;
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

/** What a request is, for telling a retry from a different request under the same key. */
export function requestHash(root: string, doc: Record<string, unknown>): string {
  const { [IDEMPOTENCY_FIELD]: _key, ...rest } = doc;
  return createHash('sha256').update(root).update('\0').update(canonicalJson(rest)).digest('base64url');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export interface IdempotentRequest {
  db: Queryable;
  accountId: number;
  key: string;
  hash: string;
  clock: () => number;
}

/** Writes the reply in the transaction of the request holding the key. */
export type SaveReply = (trx: Queryable, reply: Reply) => Promise<void>;

/** Runs `run` once for the key, or answers the reply of the request that ran it. */
export async function runOnce(req: IdempotentRequest, run: (save: SaveReply) => Promise<Reply>): Promise<Reply> {
  const { db, accountId, key } = req;
  const started = req.clock();
  for (;;) {
    const now = req.clock();
    if (await claimIdempotencyKey(db, accountId, key, req.hash, now)) return runHolding(req, run);
    const found = await findIdempotencyKey(db, accountId, key);
    if (!found) continue; // given up or swept between the two reads
    if (found.createdAt <= now - IDEMPOTENCY_WINDOW_MS) {
      await dropExpiredIdempotencyKey(db, accountId, key, found.createdAt);
      continue;
    }
    if (found.requestHash !== req.hash) {
      throw new ApiError(
        2,
        `Idempotency-Key "${key}" was used for a different request in the last 24 hours: use a new key for a new request`,
      );
    }
    if (found.reply !== null) return JSON.parse(found.reply) as Reply;
    if (
      found.createdAt <= now - ABANDONED_MS &&
      (await takeOverIdempotencyKey(db, accountId, key, found.createdAt, now))
    )
      return runHolding(req, run);
    if (now - started > WAIT_MS)
      throw new ApiError(6, `Process failure: the first request with Idempotency-Key "${key}" is still running`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function runHolding(req: IdempotentRequest, run: (save: SaveReply) => Promise<Reply>): Promise<Reply> {
  const { db, accountId, key } = req;
  const save: SaveReply = (trx, reply) => saveIdempotentReply(trx, accountId, key, JSON.stringify(reply));
  try {
    return await run(save);
  } catch (err) {
    // A refusal is the first reply too (nothing was done, and nothing will be for this key); anything else
    // gives the key up, so a retry runs.
    if (err instanceof ApiError) await save(db, { status: err.status, message: err.message, ...err.extra });
    else await releaseIdempotencyKey(db, accountId, key);
    throw err;
  }
}
