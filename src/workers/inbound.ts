// Inbound SMS from the carriers: routed to the account owning the destination number, stored for `incoming`
// with an `incoming_sms` push event, and a removal keyword from a phone the account sent a reply-to-remove
// campaign (add_unsubscribe 2) blocks that phone for the account. Unknown numbers are kept aside and logged.
// The deliver_sm is answered after the transaction committed, so a crash makes the SMSC redeliver.
import { normalizeNumber } from '../carriers/config.ts';
import type { InboundSms } from '../carriers/types.ts';
import { incomingFields } from '../domain/push-fields.ts';
import type { Logger } from '../logger.ts';
import type { LocalSignals } from '../signals.ts';
import { addToBlocklist } from '../store/blocklist.ts';
import { findNumberOwner } from '../store/carriers.ts';
import type { Store } from '../store/db.ts';
import { insertInbound, insertUnrouted, receivedReplyToRemoveCampaign } from '../store/inbound.ts';
import { recordPushEvent } from '../store/push.ts';
import { timeZones } from '../store/status-events.ts';
import { isRemovalRequest, type DeliverySettings } from './delivery-settings.ts';

/** What the inbound handler needs from the service. */
export interface InboundDeps {
  store: Store;
  logger: Logger;
  signals: LocalSignals;
  clock: () => number;
  settings: DeliverySettings;
}

/** What became of one inbound message. */
export type InboundOutcome = { routed: false } | { routed: true; accountId: number; blocked: boolean };

/** Handles inbound messages one transaction each. */
export class InboundHandler {
  readonly stats = { received: 0, routed: 0, unrouted: 0, blocked: 0 };

  constructor(private readonly deps: InboundDeps) {}

  /** Stores one inbound SMS that arrived through `carrier`. */
  async handle(carrier: string, sms: InboundSms): Promise<InboundOutcome> {
    const { store, clock, settings } = this.deps;
    this.stats.received++;
    const phone = normalizeNumber(sms.from) || sms.from;
    const dest = normalizeNumber(sms.to) || sms.to;
    const now = clock();
    const outcome = await store.db.transaction().execute(async (trx): Promise<InboundOutcome> => {
      const accountId = await findNumberOwner(trx, dest);
      if (accountId === undefined) {
        await insertUnrouted(trx, { phone, dest: sms.to, text: sms.text, carrier, receivedAt: sms.at });
        return { routed: false };
      }
      await insertInbound(trx, { accountId, phone, dest, text: sms.text, carrier, receivedAt: sms.at });
      const timeZone = (await timeZones(trx, [accountId])).get(accountId) ?? 'Asia/Jerusalem';
      await recordPushEvent(trx, {
        accountId, type: 'incoming_sms', orderKey: null, now,
        fields: incomingFields({ phone, dest, message: sms.text, date: sms.at, timeZone }),
      });
      let blocked = false;
      if (isRemovalRequest(sms.text, settings.removalKeywords) && (await receivedReplyToRemoveCampaign(trx, accountId, phone))) {
        blocked = (await addToBlocklist(trx, accountId, [phone], 'reply-stop', now)).length > 0;
      }
      return { routed: true, accountId, blocked };
    });
    if (!outcome.routed) {
      this.stats.unrouted++;
      this.deps.logger.warn({ carrier, dest: sms.to }, 'inbound SMS to a number no account owns; kept in unrouted_inbound');
      return outcome;
    }
    this.stats.routed++;
    if (outcome.blocked) this.stats.blocked++;
    this.deps.signals.notify('push');
    return outcome;
  }
}
