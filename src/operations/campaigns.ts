// cancel: a scheduled campaign by campaign_id, or every scheduled campaign carrying campaign_name.
// scheduled -> cancelled (0, unsent messages refunded); cancelled 955; queued/sending/sent 966;
// unknown or another customer's 977; a campaign whose messages already left the queue 970 (nothing changed).
import { z } from 'zod';
import { ApiError } from '../domain/errors.ts';
import { findCampaign, findCampaignsByName, markCampaignCancelled, type Campaign } from '../store/campaigns.ts';
import type { Queryable } from '../store/engine/db.ts';
import { formatShekels } from '../domain/money.ts';
import { recordCampaignStatusEvents } from '../store/status-events.ts';
import { campaignCostInState, campaignStateCounts, moveCampaignMessages, refundAmounts } from '../store/messages.ts';
import { lateMissing, optInt, optText } from './fields.ts';
import { int, SHEKELS, str } from './replies.ts';
import { defineOperation } from './types.ts';
import { DELIVERY } from '../domain/status.ts';

const UNSENT_STATES = new Set(['scheduled', 'cancelled', 'skipped']);
/** Delivery status of a cancelled message ("deleted"). */

/** The refund figures of a cancel's reply: credits, and international money when there was any. */
function refundFields(credits: number, agorot: number): Record<string, unknown> {
  return agorot > 0
    ? { refunded_credits: credits, refunded_international: formatShekels(agorot) }
    : { refunded_credits: credits };
}

/** Cancels one scheduled campaign and refunds its unsent messages; false when it stopped being scheduled. */
export async function cancelScheduledCampaign(
  db: Queryable,
  campaign: Pick<Campaign, 'id' | 'account_id'>,
  now: number,
): Promise<{ cancelled: boolean; credits: number; agorot: number }> {
  if (!(await markCampaignCancelled(db, campaign.id, now))) return { cancelled: false, credits: 0, agorot: 0 };
  const counts = await campaignStateCounts(db, campaign.id);
  for (const [state, n] of counts) {
    if (n > 0 && !UNSENT_STATES.has(state)) {
      throw new ApiError(
        970,
        `Campaign not cancelled, contact support: campaign ${campaign.id} has ${n} messages already ${state}`,
      );
    }
  }
  const cost = await campaignCostInState(db, campaign.id, 'scheduled');
  await moveCampaignMessages(db, campaign.id, 'scheduled', 'cancelled', {
    zeroCost: true,
    status: DELIVERY.DELETED,
    statusAt: now,
  });
  await recordCampaignStatusEvents(
    db,
    { id: campaign.id, accountId: campaign.account_id },
    'cancelled',
    DELIVERY.DELETED,
    now,
  );
  await refundAmounts(
    db,
    campaign.account_id,
    cost.credits,
    cost.agorot,
    `cancel: campaign ${campaign.id}`,
    { type: 'campaign', id: campaign.id },
    now,
  );
  return { cancelled: true, ...cost };
}

function stateError(state: string, id: number): ApiError {
  if (state === 'cancelled') return new ApiError(955, `Campaign already canceled: ${id}`);
  return new ApiError(966, `Campaign already sent: ${id}`);
}

export const cancel = defineOperation({
  names: ['cancel'],
  reply: z.object({
    campaign_id: int().optional(),
    cancelled: int('campaigns cancelled'),
    refunded_credits: int().optional(),
    refunded_international: str(SHEKELS).optional(),
  }),
  input: z.object({ campaign_id: optInt(), campaign_name: optText() }).superRefine((input, ctx) => {
    if (input.campaign_id === undefined && input.campaign_name === undefined)
      lateMissing(ctx, 'campaign_id (or campaign_name)');
  }),
  async handler(ctx, input) {
    if (input.campaign_id !== undefined) {
      const campaign = await findCampaign(ctx.db, ctx.account.id, input.campaign_id);
      if (!campaign)
        throw new ApiError(977, `Campaign does not belong to customer or does not exist: ${input.campaign_id}`);
      if (campaign.state !== 'scheduled') throw stateError(campaign.state, campaign.id);
      const done = await cancelScheduledCampaign(ctx.db, campaign, ctx.now);
      if (!done.cancelled) {
        const now = await findCampaign(ctx.db, ctx.account.id, campaign.id);
        throw now ? stateError(now.state, campaign.id) : new ApiError(970);
      }
      return {
        status: 0,
        message: `Campaign ${campaign.id} cancelled`,
        campaign_id: campaign.id,
        cancelled: 1,
        ...refundFields(done.credits, done.agorot),
      };
    }
    const name = input.campaign_name!;
    const matches = await findCampaignsByName(ctx.db, ctx.account.id, name);
    if (matches.length === 0)
      throw new ApiError(977, `Campaign does not belong to customer or does not exist: "${name}"`);
    const scheduled = matches.filter((m) => m.state === 'scheduled');
    if (scheduled.length === 0) {
      if (matches.every((m) => m.state === 'cancelled'))
        throw new ApiError(955, `Campaign already canceled: "${name}"`);
      throw new ApiError(966, `Campaign already sent: no scheduled campaign is named "${name}"`);
    }
    let cancelled = 0;
    let credits = 0;
    let agorot = 0;
    for (const m of scheduled) {
      const done = await cancelScheduledCampaign(ctx.db, { id: Number(m.id), account_id: ctx.account.id }, ctx.now);
      if (done.cancelled) cancelled++;
      credits += done.credits;
      agorot += done.agorot;
    }
    if (cancelled === 0) throw new ApiError(966, `Campaign already sent: no scheduled campaign is named "${name}"`);
    return {
      status: 0,
      message: `${cancelled} campaign${cancelled === 1 ? '' : 's'} named "${name}" cancelled`,
      cancelled,
      ...refundFields(credits, agorot),
    };
  },
});
