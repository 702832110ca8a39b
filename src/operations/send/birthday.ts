// The send path for the birthday worker (src/delivery/birthdays.ts): a greeting goes out as a campaign of kind
// 'birthday' in the worker's transaction, charged like any send, skipping blocked numbers and numbers that are not Israeli mobiles.
import type { Config } from '../../config.ts';
import { ApiError } from '../../domain/errors.ts';
import { findAccountById } from '../../store/accounts.ts';
import type { BirthdaySender } from '../../store/birthdays.ts';
import type { OperationContext, Signals } from '../types.ts';
import { acceptCampaign } from './accept.ts';
import { requireVerifiedSender } from './compose.ts';
import { isIsraeliMobile } from '../../domain/phone.ts';
import type { Recipient } from './destinations.ts';
import { Rejections } from './rejections.ts';

/** What a send outside a request needs from the running service. */
export interface SendDeps {
  config: Config;
  signals: Signals;
  clock: () => number;
}

/**
 * A BirthdaySender over the normal send path. `deps` is read at each send (a component gets the service only
 * when it starts). Throws (so the worker rolls back and retries) on an unverified source or too little credit;
 * a greeting whose every number is blocked is simply not sent.
 */
export function createBirthdaySender(deps: () => SendDeps): BirthdaySender {
  return async (db, send) => {
    const { config, signals, clock } = deps();
    const account = await findAccountById(db, send.accountId);
    if (!account) throw new Error(`birthday send: account ${send.accountId} does not exist`);
    const ctx: OperationContext = {
      db,
      account,
      caller: account,
      now: clock(),
      dryRun: false,
      config,
      signals,
    };
    await requireVerifiedSender(ctx, send.source);
    const recipients: Recipient[] = [...new Set(send.phones)]
      .filter(isIsraeliMobile)
      .map((phone) => ({ phone, international: false, externalId: null, source: send.source, text: send.message }));
    if (recipients.length === 0) return undefined;
    try {
      return await acceptCampaign(ctx, {
        kind: 'birthday',
        name: send.campaignName,
        source: send.source,
        scheduledAt: null,
        recipients: [recipients],
        suppress: { tempBlDays: null },
        rejected: new Rejections(),
        unsubscribe: 'none',
        links: [],
        options: { birthday_campaign_id: send.birthdayCampaignId },
      });
    } catch (err) {
      // Every number blocked: nothing was written, and there is nothing to send.
      if (err instanceof ApiError && err.status === 8) return undefined;
      throw err;
    }
  };
}
