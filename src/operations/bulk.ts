// bulk: up to 2500 `sms` items under `messages`, each with its own source, phone(s) and text, sent as one
// campaign; timing, temp_bl, campaign_name (and includes_international) apply to the whole batch.
import { z } from 'zod';
import { ApiError, missingField } from '../domain/errors.ts';
import { acceptCampaign, inBatches } from './send/accept.ts';
import { requireVerifiedSender } from './send/compose.ts';
import {
  destinationsOf,
  normaliseGivenPhones,
  requireDestinations,
  DESTINATIONS_SHAPE,
  type NormalisedDestinations,
} from './send/destinations.ts';
import {
  checkCampaignName,
  checkMessage,
  checkSource,
  parseIncludesInternational,
  parseTempBl,
  parseTiming,
} from './send/options.ts';
import { Rejections } from './send/rejections.ts';
import { acceptedReply, SEND_REPLY } from './send/reply.ts';
import { asList, type IssueSink, late, lateMissing, lenient, optText, textOf } from './fields.ts';
import { defineOperation } from './types.ts';

/** Most `sms` items one bulk may hold; more is status 2 (nothing sent). */
export const MAX_BULK_ITEMS = 2500;

/** The items under `messages`: `{sms: [...]}` (XML and most JSON), a list of `{sms}`, or a bare list; 1 to 2,500. */
function bulkItems(messages: unknown, ctx: IssueSink): Array<Record<string, unknown>> {
  const items: Array<Record<string, unknown>> = [];
  for (const m of asList(messages)) {
    if (m === null || typeof m !== 'object') continue;
    const inner = (m as Record<string, unknown>).sms;
    const list = inner !== undefined ? asList(inner) : [m];
    for (const item of list)
      if (item !== null && typeof item === 'object' && !Array.isArray(item))
        items.push(item as Record<string, unknown>);
  }
  if (items.length === 0) lateMissing(ctx, 'messages.sms');
  else if (items.length > MAX_BULK_ITEMS)
    late(ctx, 2, `Too many messages: bulk holds at most ${MAX_BULK_ITEMS} sms items, got ${items.length}`);
  return items;
}

// One message of `messages` (or `messages.sms`), read by hand: its shape for the field-name check.
const BULK_ITEM = { source: undefined, message: undefined, destinations: DESTINATIONS_SHAPE };

export const bulk = defineOperation({
  names: ['bulk'],
  idempotent: true,
  shapes: { messages: { sms: BULK_ITEM, ...BULK_ITEM } },
  reply: SEND_REPLY,
  sharesCommits: true,
  input: z.object({
    messages: lenient(
      bulkItems,
      '`{"sms": [...]}`: up to 2,500 items, each with `source`, `message` and `destinations` (`phone`, repeatable, with an optional attribute `id`).',
    ),
    timing: optText(),
    temp_bl: optText(),
    campaign_name: optText(),
    includes_international: optText(),
  }),
  async handler(ctx, input) {
    const items = input.messages;
    const name = checkCampaignName(input.campaign_name);
    const tempBl = parseTempBl(input.temp_bl);
    const allowInternational = parseIncludesInternational(input.includes_international);
    const scheduledAt = parseTiming(input.timing, ctx.account.time_zone, ctx.now);

    const found: NormalisedDestinations = { accepted: [], rejected: new Rejections() };
    const verified = new Set<string>();
    const seenPerText = new Map<string, Set<string>>();
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      const field = `messages.sms[${i}]`;
      const source = textOf(item.source)?.trim();
      if (!source) throw missingField(`${field}.source`);
      checkSource(source, `${field}.source`);
      const message = textOf(item.message);
      if (message === undefined || message === '') throw missingField(`${field}.message`);
      checkMessage(message, `${field}.message`);
      if (!verified.has(source)) {
        await requireVerifiedSender(ctx, source, `${field}.source`);
        verified.add(source);
      }
      const given = requireDestinations(destinationsOf(item.destinations), `${field}.destinations`);
      if (given.listIds.length > 0)
        throw new ApiError(7, `You can not send in this format: ${field} names a contact list; bulk takes phones`);
      // The same number may get several different texts in one bulk; the same text twice is a repeat.
      let seen = seenPerText.get(message);
      if (!seen) seenPerText.set(message, (seen = new Set()));
      normaliseGivenPhones(given.phones, { allowInternational, source, text: message, seen }, found);
    }
    const acceptance = await acceptCampaign(ctx, {
      kind: 'bulk',
      name,
      source: found.accepted[0]?.source ?? '',
      scheduledAt,
      recipients: inBatches(found.accepted),
      finalWrite: true,
      suppress: { tempBlDays: tempBl },
      rejected: found.rejected,
      unsubscribe: 'none',
      links: [],
      options: { temp_bl: tempBl, includes_international: allowInternational, items: items.length },
    });
    return acceptedReply(acceptance, found.rejected, scheduledAt, ctx.account.time_zone, ctx.dryRun);
  },
});
