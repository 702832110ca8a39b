// send_otp_whatsapp (019's `POST /whatsapp-api/send-otp-whatsapp`): a one-time code over WhatsApp, validated by
// validate_otp with service_type "whatsapp". It goes as an APPROVED authentication template of the business number
// taking one variable (the code), in the language asked for when there is one, else as free text while the user's
// window is open; with a `fallback`, as an SMS from a verified sender when WhatsApp fails or is late. The code is
// never in a reply (Yona's rule, not 019's: docs/whatsapp.md#one-time-codes), a log, or the store in clear.
import { z } from 'zod';
import {
  CODE_PLACEHOLDER,
  DEFAULT_APP_ID,
  DEFAULT_TRIES,
  DEFAULT_VALID_MINUTES,
  MAX_TRIES,
  MIN_TRIES,
  codeHashKey,
  hashCode,
  newCode,
} from '../../domain/otp.ts';
import { toNational } from '../../domain/phone.ts';
import { seal } from '../../domain/sealed.ts';
import { WA_REASON } from '../../domain/whatsapp-reasons.ts';
import { sealingKey } from '../../secret-key.ts';
import { insertOtpCode } from '../../store/otp.ts';
import { listWhatsappNumbers } from '../../store/whatsapp.ts';
import { templatesOfNumber } from '../../store/whatsapp-templates.ts';
import { lenient, optInt, optText, text } from '../fields.ts';
import { codeDestination, enforceSendLimits, inRange } from '../otp.ts';
import { int, str } from '../replies.ts';
import { Rejections } from '../send/rejections.ts';
import { defineOperation, type OperationContext } from '../types.ts';
import { checkFallback } from './fallback.ts';
import { FALLBACK_SCHEMA, FALLBACK_SHAPE, fallbackOf } from './fields.ts';
import {
  acceptWhatsapp,
  compose,
  refusal,
  requireBusinessNumber,
  windowRefusal,
  type WhatsappContent,
} from './send.ts';

/** 019's languages: 1 English, 2 Hebrew. */
const LANGUAGES: Readonly<Record<number, { prefix: string; text: string }>> = {
  1: { prefix: 'en', text: `Your verification code is ${CODE_PLACEHOLDER}` },
  2: { prefix: 'he', text: `קוד האימות שלך הוא ${CODE_PLACEHOLDER}` },
};

/** The business number a code goes from: `source` when given, else the account's first business number. */
async function businessOf(ctx: OperationContext, source: string | undefined) {
  if (source) return requireBusinessNumber(ctx, source);
  const [first] = await listWhatsappNumbers(ctx.db, ctx.account.id);
  if (!first) throw refusal(515, WA_REASON.SOURCE, 'Unverified source: this account has no WhatsApp business number');
  return { number: first.businessNumber, carrier: first.carrier };
}

export const sendOtpWhatsapp = defineOperation({
  names: ['send_otp_whatsapp'],
  idempotent: true,
  shapes: { fallback: FALLBACK_SHAPE },
  input: z.object({
    phone: text(),
    source: optText(),
    app_id: optInt(),
    max_tries: optInt(),
    language: optInt(),
    fallback: lenient(
      fallbackOf,
      'SMS fallback: `{"channel":"sms","source":VERIFIED_SMS_SENDER,"after_seconds":N}`: the code goes by SMS when WhatsApp fails or is late.',
    ).meta(FALLBACK_SCHEMA),
  }),
  reply: z.object({
    unique: str("the WhatsApp message's id"),
    reason: int('0: sent'),
    shipment_id: str(),
    campaign_id: int(),
    credits: int(),
    valid_time: int('minutes'),
    max_tries: int(),
    data: z
      .object({ status: int('0'), message: str() })
      .describe("019's reply envelope (without the code: Yona never returns it)"),
  }),
  async handler(ctx, input) {
    const appId = inRange('app_id', input.app_id, DEFAULT_APP_ID, 1, 2_147_483_647);
    const maxTries = inRange('max_tries', input.max_tries, DEFAULT_TRIES, MIN_TRIES, MAX_TRIES);
    const language = inRange('language', input.language, 1, 1, 2);
    const business = await businessOf(ctx, input.source);
    const phone = codeDestination(input.phone, true);
    const fallback = await checkFallback(ctx, input.fallback);
    await enforceSendLimits(ctx, phone.e164, appId, 'whatsapp');

    const code = newCode(ctx.config.otp.digits);
    const key = sealingKey(ctx.config);
    const sealed = seal(key, code);
    const wanted = LANGUAGES[language];
    // An approved authentication template taking the code, in the language asked for when there is one.
    const candidates = (await templatesOfNumber(ctx.db, business.number, business.carrier)).filter(
      (t) =>
        t.category.toUpperCase() === 'AUTHENTICATION' &&
        t.status.toUpperCase() === 'APPROVED' &&
        Number(t.variables) === 1,
    );
    const template = candidates.find((t) => t.language.toLowerCase().startsWith(wanted.prefix)) ?? candidates[0];
    let content: WhatsappContent;
    if (template) {
      content = {
        kind: 'template',
        id: template.name,
        language: template.language,
        variables: [CODE_PLACEHOLDER],
        stored: { text: CODE_PLACEHOLDER, sealed },
      };
    } else {
      const closed = await windowRefusal(ctx, business.number, phone.e164);
      if (closed !== undefined)
        throw refusal(
          2,
          WA_REASON.TEMPLATE_UNKNOWN,
          `No approved authentication template on ${business.number}, and the user's 24-hour window is not open`,
        );
      content = { kind: 'text', text: wanted.text, stored: { text: wanted.text, sealed } };
    }
    const composed = await compose(ctx, business, content);
    // A code is priced as authentication, whatever carries it.
    composed.category = 'authentication';
    const a = await acceptWhatsapp(ctx, {
      kind: 'whatsapp-otp',
      name: null,
      business,
      composed,
      recipients: [[{ phone: phone.e164, international: phone.international, externalId: null, source: '', text: '' }]],
      rejected: new Rejections(),
      fallback,
      priority: true,
      options: { app_id: appId, max_tries: maxTries, valid_time: DEFAULT_VALID_MINUTES, language },
    });
    await insertOtpCode(ctx.db, {
      accountId: ctx.account.id,
      appId,
      phone: phone.e164,
      codeHash: hashCode(codeHashKey(key), code),
      maxTries,
      expiresAt: ctx.now + DEFAULT_VALID_MINUTES * 60_000,
      campaignId: a.campaignId,
      now: ctx.now,
      serviceType: 'whatsapp',
    });
    const campaignId = ctx.dryRun ? 0 : a.campaignId;
    const message = `A one-time code was sent over WhatsApp to ${toNational(phone.e164)}; it is valid for ${DEFAULT_VALID_MINUTES} minutes`;
    return {
      status: 0,
      message,
      unique: ctx.dryRun ? '0' : String(a.messages[0]?.id ?? 0),
      reason: WA_REASON.OK,
      shipment_id: String(campaignId),
      campaign_id: campaignId,
      credits: a.credits,
      valid_time: DEFAULT_VALID_MINUTES,
      max_tries: maxTries,
      data: { status: 0, message },
    };
  },
});
