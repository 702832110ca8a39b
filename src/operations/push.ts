// push_url: registers one URL per account and feed type (517 when the type has one; the old one stays).
// Extension (docs/push.md): `action` `status` reads the account's registrations: state, failures, why and
// when a registration was disabled, pending events and the last delivery attempt.
import { z } from 'zod';
import { formatEvent } from '../domain/dates.ts';
import { ApiError, missingField } from '../domain/errors.ts';
import { PUSH_TYPES } from '../domain/push-fields.ts';
import { checkPushUrl } from '../domain/push-url.ts';
import { pushAllowPrivate } from '../store/operator-accounts.ts';
import { hasPushSecret, insertPushRegistration, listPushRegistrations } from '../store/push.ts';
import type { PushType } from '../store/schema/push.ts';
import { optText } from './fields.ts';
import { int, str } from './replies.ts';
import { defineOperation, type OperationContext, type ReplyTo } from './types.ts';

const PUSH_REPLY = z.object({
  type: str('the type registered (action add)').optional(),
  url: str('the URL registered (action add)').optional(),
  registrations: z
    .array(
      z.object({
        type: str().optional(),
        url: str().optional(),
        state: str('registered or disabled').optional(),
        consecutive_failures: int().optional(),
        pending_events: int('events waiting to be pushed').optional(),
        signed: int('1 when pushes carry a signature').optional(),
        disabled_at: str().nullable().optional(),
        disabled_reason: str().nullable().optional(),
        created_at: str().optional(),
        last_attempt_at: str().nullable().optional(),
        last_http_status: int().nullable().optional(),
        last_error: str().nullable().optional(),
      }),
    )
    .describe('action status: one item per registered type')
    .optional(),
});
type PushReply = ReplyTo<typeof PUSH_REPLY>;

/** The feed type named in a request; status 2 naming the allowed values otherwise. */
function parseType(text: string): PushType {
  const type = text.toLowerCase();
  if (!(PUSH_TYPES as readonly string[]).includes(type)) {
    throw new ApiError(2, `Invalid value for field type: "${text}" (use one of ${PUSH_TYPES.join(', ')})`);
  }
  return type as PushType;
}

async function add(
  ctx: OperationContext,
  typeText: string | undefined,
  urlText: string | undefined,
): Promise<PushReply> {
  if (!typeText) throw missingField('type');
  const type = parseType(typeText);
  if (!urlText) throw missingField('url');
  const allowPrivate = ctx.config.push.allowPrivate || (await pushAllowPrivate(ctx.db, ctx.account.id));
  const check = checkPushUrl(urlText, { allowPrivate });
  if (!check.ok) throw new ApiError(2, `Invalid value for field url: ${check.reason}`);
  const id = await insertPushRegistration(ctx.db, {
    accountId: ctx.account.id,
    type,
    url: check.url.href,
    now: ctx.now,
  });
  if (id === null)
    throw new ApiError(517, `Push url already registered for this type (${type}); the existing URL is unchanged`);
  return { status: 0, message: `Push URL added for ${type}`, type, url: check.url.href };
}

async function status(ctx: OperationContext, typeText: string | undefined): Promise<PushReply> {
  const type = typeText ? parseType(typeText) : undefined;
  const zone = ctx.account.time_zone;
  const at = (ms: number | null) => (ms === null ? null : formatEvent(Number(ms), zone));
  const signed = (await hasPushSecret(ctx.db, ctx.account.id)) ? 1 : 0;
  const regs = await listPushRegistrations(ctx.db, ctx.account.id, type);
  return {
    status: 0,
    message: `${regs.length} push registration${regs.length === 1 ? '' : 's'}`,
    registrations: regs.map((r) => ({
      type: r.type,
      url: r.url,
      state: r.state,
      consecutive_failures: Number(r.consecutive_failures),
      disabled_at: at(r.disabled_at),
      disabled_reason: r.disabled_reason,
      pending_events: r.pending_events,
      created_at: formatEvent(Number(r.created_at), zone),
      signed,
      last_attempt_at: at(r.last_attempt?.at ?? null),
      last_http_status: r.last_attempt?.http_status ?? null,
      last_error: r.last_attempt?.error ?? null,
    })),
  };
}

/** push_url: `add` (default) registers a URL for a type; `status` reads the registrations. */
export const pushUrl = defineOperation({
  names: ['push_url'],
  reply: PUSH_REPLY,
  input: z.object({ type: optText(), url: optText(), action: optText() }),
  async handler(ctx, input) {
    const action = (input.action ?? 'add').toLowerCase();
    if (action === 'add') return add(ctx, input.type, input.url);
    if (action === 'status') return status(ctx, input.type);
    throw new ApiError(502, `Action type not valid: "${input.action}" (use add or status)`);
  },
});
