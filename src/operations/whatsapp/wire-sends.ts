// 019's WhatsApp sends (`POST /whatsapp-api/send-whatsapp-message`, `.../send-whatsapp-template`), as operations
// of their own: one destination, the business number in `source`, an optional SMS `fallback`. Their replies carry
// the message's id (`unique`) and `reason` 0; http/whatsapp-api.ts puts them in 019's shape.
import { z } from 'zod';
import { normalizePhone } from '../../domain/phone.ts';
import { WA_REASON } from '../../domain/whatsapp-reasons.ts';
import { lenient, optText, rawText, text } from '../fields.ts';
import { int, str } from '../replies.ts';
import { Rejections } from '../send/rejections.ts';
import type { Recipient } from '../send/destinations.ts';
import { defineOperation, type OperationContext, type ReplyTo } from '../types.ts';
import { checkFallback } from './fallback.ts';
import { FALLBACK_SCHEMA, FALLBACK_SHAPE, VARIABLES_SCHEMA, fallbackOf, variablesOf } from './fields.ts';
import { acceptWhatsapp, compose, refusal, requireBusinessNumber, windowRefusal, type WhatsappDraft } from './send.ts';

/** The reply of a WhatsApp send on 019's endpoints. */
export const WHATSAPP_SEND_REPLY = z.object({
  unique: str("the WhatsApp message's id: delivery reports (dlr_whatsapp) name it"),
  reason: int('0: accepted (docs/whatsapp.md#reasons lists the others)'),
  shipment_id: str('the campaign, as delivery reports name it'),
  campaign_id: int('the campaign (0 on /api/test)'),
  category: str('the rate card category it was priced in: marketing, utility, authentication or service'),
  credits: int('credits taken'),
  fallback_after_seconds: int('seconds WhatsApp has to deliver before the SMS fallback goes').optional(),
});

/** The destination of a one-recipient send (933 with reason 3 otherwise). */
export function oneDestination(given: string, externalId: string | null = null): Recipient {
  const n = normalizePhone(given.replace(/^\+/, ''), { allowInternational: true });
  if (!n.ok)
    throw refusal(
      n.reason === 'too_short' || n.reason === 'too_long' ? 9 : 933,
      WA_REASON.DESTINATION,
      `Invalid phone number: "${given}"`,
    );
  return { phone: n.e164, international: n.international, externalId, source: '', text: '' };
}

/** Accepts a one-recipient send of 019's endpoints and answers its reply. */
async function sendToOne(
  ctx: OperationContext,
  d: Pick<WhatsappDraft, 'business' | 'composed' | 'fallback'> & { recipient: Recipient },
): Promise<ReplyTo<typeof WHATSAPP_SEND_REPLY>> {
  const a = await acceptWhatsapp(ctx, {
    kind: 'whatsapp',
    name: null,
    business: d.business,
    composed: d.composed,
    recipients: [[d.recipient]],
    rejected: new Rejections(),
    fallback: d.fallback,
  });
  const campaignId = ctx.dryRun ? 0 : a.campaignId;
  const reply: ReplyTo<typeof WHATSAPP_SEND_REPLY> = {
    status: 0,
    message: 'WhatsApp message will be sent',
    unique: ctx.dryRun ? '0' : String(a.messages[0]?.id ?? 0),
    reason: WA_REASON.OK,
    shipment_id: String(campaignId),
    campaign_id: campaignId,
    category: d.composed.category,
    credits: a.credits,
  };
  if (d.fallback) reply.fallback_after_seconds = d.fallback.afterSeconds;
  return reply;
}

const FALLBACK_DESCRIPTION =
  'SMS fallback: `{"channel":"sms","source":VERIFIED_SMS_SENDER,"after_seconds":N}` (N 0-86400, default 60): the SMS goes when WhatsApp fails, the number has no WhatsApp, or it is not delivered within N seconds.';

export const sendWhatsappMessage = defineOperation({
  names: ['send_whatsapp_message'],
  idempotent: true,
  shapes: { fallback: FALLBACK_SHAPE },
  input: z.object({
    source: text(),
    destination: text(),
    message: rawText(),
    fallback: lenient(fallbackOf, FALLBACK_DESCRIPTION).meta(FALLBACK_SCHEMA),
  }),
  reply: WHATSAPP_SEND_REPLY,
  async handler(ctx, input) {
    const business = await requireBusinessNumber(ctx, input.source);
    const recipient = oneDestination(input.destination);
    const closed = await windowRefusal(ctx, business.number, recipient.phone);
    if (closed !== undefined)
      throw refusal(
        7,
        closed,
        `Outside the 24-hour window: ${closed === WA_REASON.NO_WINDOW ? 'this user never wrote to' : "this user's window closed with"} ${business.number}; send a template`,
      );
    const fallback = await checkFallback(ctx, input.fallback);
    const composed = await compose(ctx, business, { kind: 'text', text: input.message });
    return sendToOne(ctx, { business, composed, recipient, fallback });
  },
});

export const sendWhatsappTemplate = defineOperation({
  names: ['send_whatsapp_template'],
  idempotent: true,
  shapes: { fallback: FALLBACK_SHAPE },
  input: z.object({
    source: text(),
    destination: text(),
    templateId: text(),
    language: optText(),
    dynamicFieldsObject: lenient(
      variablesOf,
      'The template\'s variables by position: `{"1": "...", "2": "..."}`, exactly as many as the template takes, none empty, no line breaks.',
    ).meta(VARIABLES_SCHEMA),
    fallback: lenient(fallbackOf, FALLBACK_DESCRIPTION).meta(FALLBACK_SCHEMA),
  }),
  reply: WHATSAPP_SEND_REPLY,
  async handler(ctx, input) {
    const business = await requireBusinessNumber(ctx, input.source);
    const recipient = oneDestination(input.destination);
    const composed = await compose(ctx, business, {
      kind: 'template',
      id: input.templateId,
      language: input.language,
      variables: input.dynamicFieldsObject,
    });
    const fallback = await checkFallback(ctx, input.fallback);
    return sendToOne(ctx, { business, composed, recipient, fallback });
  },
});
