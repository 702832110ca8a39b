// The reply of sms and bulk: the peers' fields (status, message, shipment_id) plus campaign_id and the
// figures of the send (recipients, parts, encoding, credits, international_cost) and the rejected recipients
// (the first 1,000 listed, all of them counted: rejected_total, rejected_by_reason).
import { formatShort } from '../../domain/dates.ts';
import { formatShekels } from '../../domain/money.ts';
import { z } from 'zod';
import { DATE, int, SHEKELS, str } from '../replies.ts';
import type { ReplyTo } from '../types.ts';
import type { Acceptance } from './accept.ts';
import type { Rejections } from './rejections.ts';

/** The reply of a send (sms, bulk). */
export const SEND_REPLY = z.object({
  shipment_id: str('the campaign, as pushed delivery reports name it'),
  campaign_id: int('the campaign (0 on /api/test)'),
  recipients: int('messages accepted'),
  parts: int('SMS parts per message'),
  encoding: str('gsm7 or ucs2'),
  credits: int('credits taken'),
  international_cost: str(SHEKELS).optional(),
  calls: int('voice calls to place').optional(),
  call_seconds: int(
    'seconds the longest call plays (its rendered speech times repeat, with the pauses): what calls are priced on',
  ).optional(),
  timing: str(`when a scheduled send leaves, ${DATE}`).optional(),
  rejected: z
    .array(z.object({ phone: str(), reason: str() }))
    .describe('recipients not sent to (the first 1,000)')
    .optional(),
  rejected_total: int().optional(),
  rejected_by_reason: z.record(z.string(), z.number().int()).optional(),
});

/**
 * The success reply of a send. A dry run (/api/test) answers campaign id 0: its campaign was rolled back, and
 * the embedded store would hand the same id to the next real campaign.
 */
export function acceptedReply(
  a: Acceptance,
  rejected: Rejections,
  scheduledAt: number | null,
  timeZone: string,
  dryRun: boolean,
): ReplyTo<typeof SEND_REPLY> {
  const campaignId = dryRun ? 0 : a.campaignId;
  const reply: ReplyTo<typeof SEND_REPLY> = {
    status: 0,
    message: 'SMS will be sent',
    shipment_id: String(campaignId),
    campaign_id: campaignId,
    recipients: a.recipients,
    parts: a.parts,
    encoding: a.encoding,
    credits: a.credits,
  };
  if (a.agorot > 0) reply.international_cost = formatShekels(a.agorot);
  if (a.calls > 0) {
    reply.calls = a.calls;
    reply.call_seconds = Math.ceil(a.callSeconds);
  }
  if (scheduledAt !== null) reply.timing = formatShort(scheduledAt, timeZone);
  return { ...reply, ...rejected.replyFields() };
}
