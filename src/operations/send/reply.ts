// The reply of sms and bulk: the peers' fields (status, message, shipment_id) plus campaign_id and the
// figures of the send (recipients, parts, encoding, credits, international_cost) and the rejected recipients.
import { formatShort } from '../../domain/dates.ts';
import { formatShekels } from '../../domain/money.ts';
import type { Reply } from '../types.ts';
import type { Acceptance } from './accept.ts';
import type { Rejected } from './destinations.ts';

/** The success reply of a send. */
export function acceptedReply(a: Acceptance, rejected: Rejected[], scheduledAt: number | null, timeZone: string): Reply {
  const reply: Reply = {
    status: 0,
    message: 'SMS will be sent',
    shipment_id: String(a.campaignId),
    campaign_id: a.campaignId,
    recipients: a.recipients,
    parts: a.parts,
    encoding: a.encoding,
    credits: a.credits,
  };
  if (a.agorot > 0) reply.international_cost = formatShekels(a.agorot);
  if (scheduledAt !== null) reply.timing = formatShort(scheduledAt, timeZone);
  if (rejected.length > 0) reply.rejected = rejected;
  return reply;
}
