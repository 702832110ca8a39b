// `sms` with "channel":"whatsapp": a WhatsApp send on the main API, from a business number of the account in
// `source`, to phones and contact lists, carrying `message` (free text: only users whose 24-hour window is open get
// it, the others are rejected as outside_window) or `template` (an approved one, with its variables), with an
// optional SMS `fallback`. The reply is the send's (campaign, recipients, credits, rejected); /api/test prices it.
import { ApiError, missingField } from '../../domain/errors.ts';
import { concatBatches, inBatches } from '../send/accept.ts';
import { normaliseGivenPhones, requireDestinations, type NormalisedDestinations } from '../send/destinations.ts';
import { listRecipients, resolveLists } from '../send/lists.ts';
import { checkCampaignName } from '../send/options.ts';
import { Rejections } from '../send/rejections.ts';
import { acceptedReply, type SEND_REPLY } from '../send/reply.ts';
import type { OperationContext, ReplyTo } from '../types.ts';
import type { GivenDestinations } from '../send/destinations.ts';
import { checkFallback } from './fallback.ts';
import type { GivenFallback, GivenTemplate } from './fields.ts';
import { acceptWhatsapp, compose, requireBusinessNumber, type WhatsappContent } from './send.ts';

/** The fields of `sms` a WhatsApp send does not take (2 naming the first given). */
const SMS_ONLY = ['tts', 'add_dynamic', 'add_unsubscribe', 'temp_bl', 'timing', 'tag'] as const;

/** What the `sms` operation read that a WhatsApp send takes (its input, operations/sms.ts). */
export interface WhatsappSmsInput {
  source: string;
  destinations: GivenDestinations;
  message?: string;
  campaign_name?: string;
  channel?: string;
  template?: GivenTemplate;
  fallback?: GivenFallback;
  links: unknown[];
  tts?: unknown;
  add_dynamic?: string;
  add_unsubscribe?: string;
  temp_bl?: string;
  timing?: string;
  tag?: unknown;
}

export async function whatsappSms(ctx: OperationContext, input: WhatsappSmsInput): Promise<ReplyTo<typeof SEND_REPLY>> {
  if (input.channel?.toLowerCase() !== 'whatsapp')
    throw new ApiError(2, `Invalid value for field channel: "sms" or "whatsapp", got "${input.channel}"`);
  for (const field of SMS_ONLY)
    if (input[field] !== undefined)
      throw new ApiError(2, `Invalid value for field ${field}: not taken by a WhatsApp send`);
  if (input.links.length > 0) throw new ApiError(2, 'Invalid value for field links: not taken by a WhatsApp send');
  const name = checkCampaignName(input.campaign_name);
  const business = await requireBusinessNumber(ctx, input.source);
  const given = requireDestinations(input.destinations);
  let content: WhatsappContent;
  if (input.template !== undefined) {
    if (!input.template.id) throw missingField('template.id');
    content = {
      kind: 'template',
      id: input.template.id,
      language: input.template.language,
      variables: input.template.variables,
    };
  } else {
    if (input.message === undefined) throw missingField('message (or template)');
    content = { kind: 'text', text: input.message };
  }
  const composed = await compose(ctx, business, content);
  const fallback = await checkFallback(ctx, input.fallback);
  const listIds = await resolveLists(ctx, given.listIds);
  const found: NormalisedDestinations = { accepted: [], rejected: new Rejections() };
  const seen = new Set<string>();
  // WhatsApp numbers are international by nature: any country's number is taken.
  const opts = { allowInternational: true, source: business.number, text: composed.text, seen };
  normaliseGivenPhones(given.phones, opts, found);
  const recipients =
    listIds.length === 0
      ? inBatches(found.accepted)
      : concatBatches(
          inBatches(found.accepted),
          listRecipients(ctx, listIds, { ...opts, dynamic: false }, found.rejected),
        );
  const a = await acceptWhatsapp(ctx, {
    kind: 'whatsapp',
    name,
    business,
    composed,
    recipients,
    rejected: found.rejected,
    fallback,
  });
  const reply = acceptedReply(a, found.rejected, null, ctx.account.time_zone, ctx.dryRun);
  return { ...reply, message: 'WhatsApp messages will be sent' };
}
