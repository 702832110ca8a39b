// A WhatsApp send, for every way in (019's WhatsApp endpoints, `sms` with "channel":"whatsapp", WhatsApp one-time
// codes): the business number must be one the operator gave the account, free text goes only to users whose
// 24-hour window is open, a template must exist, be APPROVED and get exactly its variables, all refused before
// anything is written or charged; then the messages are priced from the rate card (by the template's category,
// free text as service) and written through the send path, with their SMS fallbacks beside them.
import { ApiError } from '../../domain/errors.ts';
import { normalizePhone } from '../../domain/phone.ts';
import { WA_REASON, type WaReason } from '../../domain/whatsapp-reasons.ts';
import { templateCategory, whatsappCredits, type WhatsappCategory } from '../../domain/whatsapp-pricing.ts';
import { checkVariables, fillTemplate } from '../../domain/whatsapp-templates.ts';
import { whatsappNumber, windowClosesAt } from '../../store/whatsapp.ts';
import { templatesOfNumber, type WhatsappTemplate } from '../../store/whatsapp-templates.ts';
import { whatsappRateCard } from '../../store/whatsapp-prices.ts';
import { insertFallbacks } from '../../store/whatsapp-fallbacks.ts';
import { whatsappMessagesOf } from '../../store/whatsapp-sends.ts';
import { acceptCampaign, concatBatches, type Acceptance, type RecipientBatches } from '../send/accept.ts';
import type { Recipient, SealedText } from '../send/destinations.ts';
import type { Rejections } from '../send/rejections.ts';
import type { OperationContext } from '../types.ts';
import type { FallbackSpec } from './fields.ts';

/** The longest free text WhatsApp takes. */
export const MAX_WHATSAPP_TEXT = 4096;

/** What a WhatsApp send carries: free text, or a template with its variables. */
export type WhatsappContent =
  | { kind: 'text'; text: string; stored?: SealedText }
  | {
      kind: 'template';
      id: string;
      language?: string;
      variables: Readonly<Record<string, string>> | readonly string[];
      /** The variables as stored, when one of them holds a secret (a one-time code's `[code]`). */
      stored?: SealedText;
    };

/** A refusal of a WhatsApp send, with its reason for 019's endpoints (`reason` in the reply). */
export function refusal(status: ConstructorParameters<typeof ApiError>[0], reason: WaReason, detail: string): ApiError {
  return new ApiError(status, detail, { reason });
}

/** The business number the send goes from: one the operator granted to the account (515, reason 5, otherwise). */
export async function requireBusinessNumber(
  ctx: OperationContext,
  given: string,
): Promise<{ number: string; carrier: string | null }> {
  const digits = given.replace(/^\+/, '').trim();
  const n = /^\d{6,15}$/.test(digits) ? normalizePhone(digits, { allowInternational: true }) : undefined;
  const number = n?.ok ? n.e164 : digits;
  const grant = await whatsappNumber(ctx.db, number);
  if (!grant || grant.accountId !== ctx.account.id)
    throw refusal(
      515,
      WA_REASON.SOURCE,
      `Unverified source: "${given}" is not a WhatsApp business number of this account`,
    );
  return { number, carrier: grant.carrier };
}

/** A template the send may use: 2 with reason 9 (unknown), 10 (not APPROVED) otherwise. */
export function chooseTemplate(
  templates: readonly WhatsappTemplate[],
  id: string,
  language?: string,
): WhatsappTemplate {
  const named = templates.filter((t) => t.name === id && (language === undefined || t.language === language));
  if (named.length === 0)
    throw refusal(
      2,
      WA_REASON.TEMPLATE_UNKNOWN,
      `Invalid value for field templateId: no template "${id}"${language ? ` in ${language}` : ''} on this business number`,
    );
  const approved = named.find((t) => t.status.toUpperCase() === 'APPROVED');
  if (!approved)
    throw refusal(
      2,
      WA_REASON.TEMPLATE_NOT_APPROVED,
      `Invalid value for field templateId: template "${id}" is ${named[0].status}, not APPROVED`,
    );
  return approved;
}

/** What each WhatsApp message of a send is: its text (what it reads like), its template payload, its category. */
export interface Composed {
  text: string;
  stored?: SealedText;
  template: string | null;
  category: WhatsappCategory;
}

/** The send's content checked against the business number's templates (2 with reasons 9, 10, 11 otherwise). */
export async function compose(
  ctx: OperationContext,
  business: { number: string; carrier: string | null },
  content: WhatsappContent,
): Promise<Composed> {
  if (content.kind === 'text') {
    const length = [...content.text].length;
    if (length > MAX_WHATSAPP_TEXT)
      throw refusal(989, WA_REASON.FIELD, `message is too long: ${length} characters, at most ${MAX_WHATSAPP_TEXT}`);
    return { text: content.text, stored: content.stored, template: null, category: 'service' };
  }
  const template = chooseTemplate(
    await templatesOfNumber(ctx.db, business.number, business.carrier),
    content.id,
    content.language,
  );
  const checked = checkVariables(content.variables, Number(template.variables));
  if (!checked.ok) {
    const p = checked.problem;
    const why =
      p.kind === 'count'
        ? `template "${template.name}" takes ${p.expected} variables, ${p.given} given`
        : p.kind === 'empty'
          ? `variable ${p.variable} is empty`
          : `variable ${p.variable} holds a line break, which WhatsApp refuses`;
    throw refusal(2, WA_REASON.VARIABLES, `Invalid value for field dynamicFieldsObject: ${why}`);
  }
  const payload = (parameters: string[]) =>
    JSON.stringify({ name: template.name, language: template.language, parameters });
  const text = fillTemplate(template.body, checked.values);
  const composed: Composed = {
    text,
    template: payload(checked.values),
    category: templateCategory(template.category),
  };
  if (content.stored)
    composed.stored = { text: fillTemplate(template.body, checked.values), sealed: content.stored.sealed };
  return composed;
}

/** Why free text may not go to a user now: reason 7 (never wrote) or 8 (the window closed); undefined: it may. */
export async function windowRefusal(
  ctx: OperationContext,
  businessNumber: string,
  user: string,
): Promise<WaReason | undefined> {
  const closes = await windowClosesAt(ctx.db, ctx.account.id, businessNumber, user);
  if (closes === undefined) return WA_REASON.NO_WINDOW;
  return ctx.now < closes ? undefined : WA_REASON.WINDOW_CLOSED;
}

/** The recipients of a free-text send whose window is open; the others rejected as outside_window. */
async function* insideWindow(
  ctx: OperationContext,
  businessNumber: string,
  batches: RecipientBatches,
  rejected: Rejections,
): AsyncIterable<Recipient[]> {
  for await (const batch of batches as AsyncIterable<Recipient[]>) {
    const kept: Recipient[] = [];
    for (const r of batch) {
      if ((await windowRefusal(ctx, businessNumber, r.phone)) === undefined) kept.push(r);
      else rejected.add(r.phone, r.externalId, 'outside_window');
    }
    if (kept.length > 0) yield kept;
  }
}

/** A WhatsApp send ready to accept. */
export interface WhatsappDraft {
  kind: 'whatsapp' | 'whatsapp-otp';
  name: string | null;
  business: { number: string; carrier: string | null };
  composed: Composed;
  recipients: RecipientBatches;
  rejected: Rejections;
  fallback?: FallbackSpec;
  priority?: boolean;
  options?: Record<string, unknown>;
}

/** What was accepted, with each message's id by phone (for `unique`). */
export interface WhatsappAcceptance extends Acceptance {
  messages: Array<{ id: number; phone: string }>;
}

/** Prices, debits and writes the messages (and their fallbacks); 4 when the credit is short. */
export async function acceptWhatsapp(ctx: OperationContext, d: WhatsappDraft): Promise<WhatsappAcceptance> {
  const card = await whatsappRateCard(ctx.db);
  const credits = whatsappCredits(card, d.composed.category);
  const content = { credits, template: d.composed.template };
  const asWhatsapp = async function* (batches: RecipientBatches): AsyncIterable<Recipient[]> {
    for await (const batch of batches as AsyncIterable<Recipient[]>)
      yield batch.map((r) => ({
        ...r,
        source: d.business.number,
        text: d.composed.text,
        ...(d.composed.stored ? { stored: d.composed.stored } : {}),
        channel: 'whatsapp' as const,
        whatsapp: content,
      }));
  };
  const recipients =
    d.composed.template === null
      ? insideWindow(ctx, d.business.number, concatBatches(d.recipients), d.rejected)
      : concatBatches(d.recipients);
  const acceptance = await acceptCampaign(ctx, {
    kind: d.kind,
    channel: 'whatsapp',
    name: d.name,
    source: d.business.number,
    scheduledAt: null,
    recipients: asWhatsapp(recipients),
    suppress: { tempBlDays: null },
    rejected: d.rejected,
    unsubscribe: 'none',
    links: [],
    priority: d.priority,
    options: {
      ...d.options,
      category: d.composed.category,
      ...(d.composed.template ? { template: JSON.parse(d.composed.template) } : {}),
      ...(d.fallback ? { fallback: d.fallback } : {}),
    },
  });
  const messages = await whatsappMessagesOf(ctx.db, acceptance.campaignId);
  if (d.fallback) {
    const fallback = d.fallback;
    await insertFallbacks(
      ctx.db,
      messages.map((m) => ({
        messageId: m.id,
        accountId: ctx.account.id,
        source: fallback.source,
        text: d.composed.stored?.text ?? d.composed.text,
        sealed: d.composed.stored?.sealed ?? null,
        dueAt: ctx.now + fallback.afterSeconds * 1000,
        now: ctx.now,
      })),
    );
  }
  return { ...acceptance, messages };
}
