// Sender names by request: a customer asks for a name from its console with a reason (requestSender); a reserved
// name (the list `yona admin reserved-senders` keeps, and the operator's own verification sender) is refused
// then, with the reason why. The operator approves (the name becomes a verified sender of the account) or
// rejects with a reason the customer sees. Every refusal carries `refused`, for the console's words.
import { z } from 'zod';
import { sourceProblem } from '../domain/accounts.ts';
import { ApiError } from '../domain/errors.ts';
import { MAX_SENDER_REASON, reservedBy, reservedPattern, senderKey } from '../domain/sender-names.ts';
import { statusMessage } from '../domain/status.ts';
import {
  addReservedSender,
  decideSenderRequest,
  findSenderRequest,
  insertSenderRequest,
  isReservedPattern,
  pendingRequestFor,
  removeReservedSender,
  reservedSenderPatterns,
} from '../store/sender-requests.ts';
import { addVerifiedSender, isVerifiedSender } from '../store/senders.ts';
import { defineOperation, type OperatorOperation } from './types.ts';

const ok = { status: 0, message: statusMessage(0) } as const;

/** Why a request or a decision was refused. */
export type SenderRefusal =
  | 'invalid'
  | 'no-reason'
  | 'reserved'
  | 'verified'
  | 'pending'
  | 'unknown'
  | 'decided'
  | 'no-account';

function refuse(status: 2 | 511 | 992 | 503, refused: SenderRefusal, detail: string): never {
  throw new ApiError(status, detail, { refused });
}

const trimmedReason = (text: string) => text.trim().slice(0, MAX_SENDER_REASON);

/** Asks the operator for a sender name, with a reason; refused at once when invalid, reserved, verified or waiting. */
export const requestSender = defineOperation({
  names: ['requestSender'],
  internal: true,
  input: z.object({ source: z.string(), reason: z.string() }),
  reply: z.object({ id: z.number() }),
  async handler(ctx, input) {
    const source = input.source.trim();
    const problem = sourceProblem(source);
    if (problem) refuse(992, 'invalid', `Source length is invalid: ${problem}`);
    const reason = trimmedReason(input.reason);
    if (reason === '') refuse(2, 'no-reason', 'Missing required field: reason');
    const own = senderKey(ctx.config.sending.verifySource);
    const reserved = reservedBy(source, [own, ...(await reservedSenderPatterns(ctx.db))]);
    if (reserved)
      refuse(511, 'reserved', `"${source}" is a reserved sender name (${reserved}); it cannot be requested`);
    if (await isVerifiedSender(ctx.db, ctx.account.id, source))
      refuse(511, 'verified', `"${source}" is already a verified sender of this account`);
    if (await pendingRequestFor(ctx.db, ctx.account.id, source))
      refuse(511, 'pending', `"${source}" is already waiting for the operator`);
    const id = await insertSenderRequest(ctx.db, { accountId: ctx.account.id, source, reason, now: ctx.now });
    return { ...ok, id };
  },
});

const decision = z.object({ id: z.number().int(), by: z.string().min(1), reason: z.string().optional() });
/** A request as the audit log shows it around a decision. */
const requestAudit = {
  subject: (i: { id: number }) => `sender request #${i.id}`,
  state: async (db: Parameters<typeof findSenderRequest>[0], i: { id: number }) => {
    const r = await findSenderRequest(db, i.id);
    return r && { username: r.username, source: r.source, state: r.state, reason: r.decisionReason };
  },
};

const decided = z.object({
  username: z.string(),
  source: z.string(),
  before: z.string(),
  after: z.string(),
});

async function pendingRequest(db: Parameters<typeof findSenderRequest>[0], id: number) {
  const request = await findSenderRequest(db, id);
  if (!request) refuse(2, 'unknown', `No sender request ${id}`);
  if (request.state !== 'pending') refuse(511, 'decided', `Sender request ${id} is already ${request.state}`);
  return request;
}

/** Approves a waiting request: its name becomes a verified sender of the account. */
export const approveSender: OperatorOperation<typeof decision, typeof decided> = {
  names: ['approveSender'],
  internal: true,
  input: decision,
  reply: decided,
  audit: requestAudit,
  async handler(ctx, input) {
    const request = await pendingRequest(ctx.db, input.id);
    await decideSenderRequest(ctx.db, { id: request.id, state: 'approved', reason: null, by: input.by, now: ctx.now });
    await addVerifiedSender(ctx.db, request.accountId, request.source, 'operator', ctx.now);
    return { ...ok, username: request.username, source: request.source, before: 'pending', after: 'approved' };
  },
};

/** Rejects a waiting request with a reason the customer sees. */
export const rejectSender: OperatorOperation<typeof decision, typeof decided> = {
  names: ['rejectSender'],
  internal: true,
  input: decision,
  reply: decided,
  audit: requestAudit,
  async handler(ctx, input) {
    const reason = trimmedReason(input.reason ?? '');
    if (reason === '') refuse(2, 'no-reason', 'Missing required field: reason (the customer is shown it)');
    const request = await pendingRequest(ctx.db, input.id);
    await decideSenderRequest(ctx.db, { id: request.id, state: 'rejected', reason, by: input.by, now: ctx.now });
    return { ...ok, username: request.username, source: request.source, before: 'pending', after: 'rejected' };
  },
};

const reservedInput = z.object({ pattern: z.string(), reserved: z.boolean() });
const reservedReply = z.object({ pattern: z.string(), changed: z.boolean() });

/** Adds a name (or `prefix*`) to the reserved sender names, or takes it off. */
export const setReservedSender: OperatorOperation<typeof reservedInput, typeof reservedReply> = {
  names: ['setReservedSender'],
  internal: true,
  input: reservedInput,
  reply: reservedReply,
  audit: {
    subject: (i) => `reserved sender ${reservedPattern(i.pattern) ?? i.pattern}`,
    state: async (db, i) => {
      const pattern = reservedPattern(i.pattern);
      return { reserved: pattern ? await isReservedPattern(db, pattern) : false };
    },
  },
  async handler(ctx, input) {
    const pattern = reservedPattern(input.pattern);
    if (!pattern) refuse(2, 'invalid', 'Missing required field: a name or prefix* to reserve');
    const changed = input.reserved
      ? await addReservedSender(ctx.db, pattern, ctx.now)
      : await removeReservedSender(ctx.db, pattern);
    return { ...ok, pattern, changed };
  },
};
