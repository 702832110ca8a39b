// sms: a text to phones and/or contact lists (with a `tts` block, a voice send: calls speaking the text, besides
// or instead of texts, by its type). Field rules in send/options.ts; the writing in send/accept.ts.
import { z } from 'zod';
import { ApiError, missingField } from '../domain/errors.ts';
import { acceptCampaign, concatBatches, inBatches } from './send/accept.ts';
import { codeLinks, composeText, requireVerifiedSender } from './send/compose.ts';
import {
  destinationsOf,
  normaliseGivenPhones,
  requireDestinations,
  DESTINATIONS_SHAPE,
  type NormalisedDestinations,
} from './send/destinations.ts';
import { listRecipients, resolveLists } from './send/lists.ts';
import { requireOpenableLinks } from './send/public-links.ts';
import {
  checkCampaignName,
  checkMessage,
  checkSource,
  parseIncludesInternational,
  checkLinks,
  linksOf,
  parseTempBl,
  parseTiming,
  parseTts,
  ttsOf,
  parseUnsubscribeField,
} from './send/options.ts';
import { Rejections } from './send/rejections.ts';
import { spokenLengths } from './send/spoken-length.ts';
import type { SpokenLengths } from '../domain/voice.ts';
import { acceptedReply, SEND_REPLY } from './send/reply.ts';
import { lenient, optText, rawText, text, textOf } from './fields.ts';
import {
  FALLBACK_SCHEMA,
  FALLBACK_SHAPE,
  TEMPLATE_SCHEMA,
  TEMPLATE_SHAPE,
  fallbackOf,
  templateOf,
} from './whatsapp/fields.ts';
import { whatsappSms } from './whatsapp/sms-channel.ts';
import { defineOperation } from './types.ts';

const rawOptional = () => z.preprocess((v) => textOf(v), z.string().optional());

/** Input of sms: destinations, links and tts read from their lenient shapes, checked by the handler in turn. */
export const smsInput = z.object({
  source: text(),
  destinations: lenient(
    destinationsOf,
    '`phone` (repeatable, `5xxxxxxx` or `05xxxxxxx`, optional attribute `id`: in JSON `{"$": {"id": "a1"}, "_": "0521234567"}`) and `cl_id` (repeatable contact list ids).',
  ),
  message: rawText().optional(),
  tag: rawOptional(),
  add_dynamic: optText(),
  timing: optText(),
  add_unsubscribe: optText(),
  temp_bl: optText(),
  includes_international: optText(),
  campaign_name: optText(),
  links: lenient(
    linksOf,
    '`link` elements (repeatable), each a URL with attribute `id`; `[id]` in the message marks where its short link goes.',
  ),
  tts: lenient(
    ttsOf,
    'Makes the send a voice send: `type` (2, 3 or 4), `rate` (-10..10), `repeat` (default 2), `voice` (ymMale, ymFemale).',
  ),
  channel: optText().meta({
    enum: ['sms', 'whatsapp'],
    description:
      '`sms` (the default) or `whatsapp`: then `source` is a business number of the account and the send carries `message` (free text, users inside their 24-hour window only) or `template` (docs/whatsapp.md).',
  }),
  template: lenient(
    templateOf,
    'With `"channel":"whatsapp"`: an approved template instead of `message`, `{"id": NAME, "language": CODE, "variables": {"1": "..."}}`.',
  ).meta(TEMPLATE_SCHEMA),
  fallback: lenient(
    fallbackOf,
    'With `"channel":"whatsapp"`: `{"channel":"sms","source":VERIFIED_SMS_SENDER,"after_seconds":N}`, an SMS from that sender when WhatsApp fails, the number has no WhatsApp, or it is not delivered within N seconds (0-86400, default 60).',
  ).meta(FALLBACK_SCHEMA),
});

type SmsInput = z.output<typeof smsInput>;

// The optional text fields of the common shape, in the schema's order (tag is kept as sent, the others trimmed).
const OPTIONAL_TEXTS = [
  'add_dynamic',
  'timing',
  'add_unsubscribe',
  'temp_bl',
  'includes_international',
  'campaign_name',
] as const;

/**
 * What smsInput reads from an `sms` of the common shape, read without zod (a third of a send's validation):
 * `source` and `message` as non-blank strings, `tag` and the optional text fields as strings or absent, and no
 * `links` or `tts`. Undefined for anything else, which smsInput reads and words the errors of.
 * test/operations/sms-input.test.ts holds the two to the same output.
 */
export function commonSmsInput(doc: Record<string, unknown>): SmsInput | undefined {
  const { source, message, tag } = doc;
  if (typeof source !== 'string' || typeof message !== 'string') return undefined;
  if (doc.links !== undefined || doc.tts !== undefined || (tag !== undefined && typeof tag !== 'string'))
    return undefined;
  if (doc.channel !== undefined || doc.template !== undefined || doc.fallback !== undefined) return undefined;
  const trimmedSource = source.trim();
  if (trimmedSource === '' || message.trim() === '') return undefined;
  // As zod gives it: `tts` (absent) left out, `links` (absent) read as none.
  const input: Omit<SmsInput, 'tts' | 'template' | 'fallback'> = {
    source: trimmedSource,
    destinations: destinationsOf(doc.destinations),
    message,
    links: [],
  };
  if ('tag' in doc) input.tag = tag;
  for (const field of OPTIONAL_TEXTS) {
    if (!(field in doc)) continue;
    const value = doc[field];
    if (typeof value !== 'string') return undefined;
    const trimmed = value.trim();
    input[field] = trimmed === '' ? undefined : trimmed;
  }
  return input as SmsInput;
}

export const sms = defineOperation({
  names: ['sms'],
  idempotent: true,
  shapes: {
    destinations: DESTINATIONS_SHAPE,
    links: { link: { id: undefined } },
    tts: { type: undefined, rate: undefined, repeat: undefined, voice: undefined },
    template: TEMPLATE_SHAPE,
    fallback: FALLBACK_SHAPE,
  },
  input: smsInput,
  commonInput: commonSmsInput,
  reply: SEND_REPLY,
  sharesCommits: true,
  // A voice send's speech is rendered first, outside the transaction: its calls are priced on its length.
  prepare: (input) => spokenLengths(input.message ?? '', input.tts),
  preparesFor: (doc) => ttsOf(doc.tts) !== undefined,
  async handler(ctx, input) {
    if (input.channel !== undefined && input.channel.toLowerCase() !== 'sms') return whatsappSms(ctx, input);
    if (input.message === undefined) throw missingField('message');
    const source = checkSource(input.source);
    const message = checkMessage(input.message);
    const name = checkCampaignName(input.campaign_name);
    const unsubscribe = parseUnsubscribeField(input.add_unsubscribe);
    const tempBl = parseTempBl(input.temp_bl);
    const allowInternational = parseIncludesInternational(input.includes_international);
    const scheduledAt = parseTiming(input.timing, ctx.account.time_zone, ctx.now);
    const links = codeLinks(checkLinks(input.links, ctx.config.publicUrl));
    const tts = parseTts(input.tts);
    const given = requireDestinations(input.destinations);
    const dynamic = input.add_dynamic === '1';
    if (dynamic && (given.listIds.length !== 1 || given.phones.length > 0)) {
      throw new ApiError(987, 'add_dynamic 1 needs exactly one cl_id and no phone elements');
    }
    await requireVerifiedSender(ctx, source);
    if (links.length > 0 || unsubscribe === 'link')
      await requireOpenableLinks(ctx, links.length > 0 ? 'its short links' : 'its removal links');
    const listIds = await resolveLists(ctx, given.listIds);

    const textToSend = composeText({ tag: input.tag, message, links, unsubscribe, publicUrl: ctx.config.publicUrl });
    const found: NormalisedDestinations = { accepted: [], rejected: new Rejections() };
    // A number is sent once per send; one list alone has no repeats (a list holds a number once).
    const seen = given.phones.length > 0 || listIds.length > 1 ? new Set<string>() : undefined;
    normaliseGivenPhones(
      given.phones,
      { allowInternational, source, text: textToSend, seen: seen ?? new Set() },
      found,
    );
    const phones = inBatches(found.accepted);
    const recipients =
      listIds.length === 0
        ? phones
        : concatBatches(
            phones,
            listRecipients(
              ctx,
              listIds,
              { allowInternational, source, text: textToSend, dynamic, seen },
              found.rejected,
            ),
          );

    const acceptance = await acceptCampaign(ctx, {
      kind: tts ? 'tts' : 'sms',
      ...(tts
        ? {
            calls: {
              type: tts.type,
              spoken: { voice: tts.voice, rate: tts.rate, repeat: tts.repeat },
              lengths: ctx.prepared as SpokenLengths | undefined,
            },
          }
        : {}),
      name,
      source,
      scheduledAt,
      recipients,
      finalWrite: true,
      suppress: { tempBlDays: tempBl },
      rejected: found.rejected,
      unsubscribe,
      links,
      options: {
        add_unsubscribe: unsubscribe,
        temp_bl: tempBl,
        includes_international: allowInternational,
        add_dynamic: dynamic,
        cl_ids: listIds,
        tag: input.tag ?? null,
        links: links.map((l) => ({ id: l.key, target: l.target, code: l.code })),
        ...(tts ? { tts, call_credits_per_minute: ctx.config.callCreditsPerMinute } : {}),
      },
    });
    return acceptedReply(acceptance, found.rejected, scheduledAt, ctx.account.time_zone, ctx.dryRun);
  },
});
