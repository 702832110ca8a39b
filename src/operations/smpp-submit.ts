// smppSubmit: a submit_sm (or submit_multi) of the SMPP server, run as the API's `sms` runs (the same handler:
// verified sender, blocklist, credit, routes, pricing, one campaign), plus what its receipts need: the row that
// tells the receipts' writers to queue them as deliver_sm for the account's receiver binds.
import { z } from 'zod';
import { recordSmppSubmit } from '../store/smpp-outbox.ts';
import { SEND_REPLY } from './send/reply.ts';
import { commonSmsInput, sms, smsInput } from './sms.ts';
import { defineOperation } from './types.ts';

const smppFields = {
  /** The submit's registered_delivery (bits 0-1: receipt on any final outcome, on failure only). */
  registered_delivery: z.number().int().min(0).max(255),
  /** validity_period as a time, when given. */
  validity_until: z.number().int().optional(),
};

const input = smsInput.extend(smppFields);
type SmppSubmitInput = z.output<typeof input>;

export const smppSubmit = defineOperation({
  names: ['smppSubmit'],
  internal: true,
  input,
  commonInput(doc) {
    const { registered_delivery, validity_until, ...send } = doc;
    if (typeof registered_delivery !== 'number' || !Number.isInteger(registered_delivery)) return undefined;
    if (validity_until !== undefined && typeof validity_until !== 'number') return undefined;
    const common = commonSmsInput(send);
    if (!common) return undefined;
    return { ...common, registered_delivery, validity_until } as SmppSubmitInput;
  },
  reply: SEND_REPLY,
  sharesCommits: true,
  async handler(ctx, input) {
    const { registered_delivery, validity_until, ...send } = input;
    const reply = await sms.handler(ctx, send);
    if (reply.status === 0 && !ctx.dryRun)
      await recordSmppSubmit(ctx.db, {
        campaignId: reply.campaign_id,
        accountId: ctx.account.id,
        registeredDelivery: registered_delivery,
        source: send.source.trim(),
        textHead: (send.message ?? '').slice(0, 20),
        submittedAt: ctx.now,
        validityUntil: validity_until ?? null,
      });
    return reply;
  },
});
