// The reply of sms and bulk: the peers' fields (status, message, shipment_id) plus campaign_id and the
// figures of the send (recipients, parts, encoding, credits, international_cost) and the rejected recipients
// (the first 1,000 listed, all of them counted: rejected_total, rejected_by_reason).
import { formatShort } from '../../domain/dates.ts';
import { formatShekels } from '../../domain/money.ts';
import type { Reply } from '../types.ts';
import type { Acceptance } from './accept.ts';
import type { Rejections } from './rejections.ts';

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
): Reply {
  const campaignId = dryRun ? 0 : a.campaignId;
  const reply: Reply = {
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
