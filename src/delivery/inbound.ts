// Inbound SMS from the carriers: routed to the account owning the destination number, stored for `incoming`
// with an `incoming_sms` push event, and a removal keyword from a phone the account sent a reply-to-remove
// campaign (add_unsubscribe 2) blocks that phone for the account. Unknown numbers are kept aside and logged.
// The deliver_sm is answered after the transaction committed, so a crash makes the SMSC redeliver; parts of a
// concatenated SMS are stored as they come and the message is assembled when the last one arrives.
import { normalizeNumber } from './routing.ts';
import type { InboundSms } from '../carriers/types.ts';
import { incomingFields } from '../domain/push-fields.ts';
import type { Logger } from '../logger.ts';
import { HeldSignals, type LocalSignals } from '../signals.ts';
import { blockNumbers } from '../store/blocklist.ts';
import { findNumberOwner } from '../store/carriers.ts';
import type { Queryable, Store } from '../store/engine/db.ts';
import {
  addInboundPart,
  insertInbound,
  insertUnrouted,
  pruneInboundParts,
  receivedReplyToRemoveCampaign,
} from '../store/inbound.ts';
import { recordPushEvent } from '../store/push.ts';
import { timeZones } from '../store/status-events.ts';
import { isRemovalRequest, type DeliverySettings } from './delivery-settings.ts';
import { storeWhatsappInbound } from './whatsapp-inbound.ts';

/** What the inbound handler needs from the service. */
export interface InboundDeps {
  store: Store;
  logger: Logger;
  signals: LocalSignals;
  clock: () => number;
  settings: DeliverySettings;
}

/**
 * What became of one inbound message (`partial`: a part kept until the rest of its message arrives; `seen`: its
 * claim found it handled already, nothing done).
 */
export type InboundOutcome =
  | { routed: false }
  | { routed: 'partial' }
  | { routed: 'seen' }
  | { routed: true; accountId: number; blocked: boolean };

/** Parts of a concatenated SMS whose other parts never came are dropped after this long. */
const PART_TTL_MS = 24 * 3600_000;

/** Handles inbound messages one transaction each. */
export class InboundHandler {
  readonly stats = { received: 0, routed: 0, unrouted: 0, blocked: 0 };
  private lastPrune = 0;

  constructor(private readonly deps: InboundDeps) {}

  /**
   * Stores one inbound SMS that arrived through `carrier`. A part of a concatenated SMS is kept until its
   * message is whole (in the same transaction, so its acknowledgement means it is stored). `claim`, run first in
   * that transaction, says whether the message is still to be handled (a stored webhook event marks itself so).
   */
  async handle(
    carrier: string,
    sms: InboundSms,
    claim?: (trx: Queryable) => Promise<boolean>,
  ): Promise<InboundOutcome> {
    const { store, clock } = this.deps;
    this.stats.received++;
    // A WhatsApp user known only by a business-scoped user id keeps it as it is.
    const scopedUser = sms.channel === 'whatsapp' && !/^\+?\d+$/.test(sms.from);
    const phone = scopedUser ? sms.from : normalizeNumber(sms.from) || sms.from;
    const dest = normalizeNumber(sms.to) || sms.to;
    const now = clock();
    await this.pruneParts(now);
    const held = new HeldSignals();
    const outcome = await store.db.transaction().execute(async (trx): Promise<InboundOutcome> => {
      if (claim && !(await claim(trx))) return { routed: 'seen' };
      if (sms.channel === 'whatsapp') return storeWhatsappInbound(trx, carrier, { ...sms, phone, dest }, now);
      if (!sms.part) return this.storeWhole(trx, held, carrier, { ...sms, phone, dest }, now);
      const whole = await addInboundPart(trx, {
        carrier,
        phone,
        dest,
        ...sms.part,
        text: sms.text,
        receivedAt: sms.at,
      });
      if (!whole) return { routed: 'partial' };
      return this.storeWhole(trx, held, carrier, { ...sms, phone, dest, text: whole.text, at: whole.receivedAt }, now);
    });
    held.release(this.deps.signals);
    if (outcome.routed === 'partial' || outcome.routed === 'seen') return outcome;
    if (outcome.routed === false) {
      this.stats.unrouted++;
      this.deps.logger.warn(
        { carrier, dest: sms.to },
        'inbound SMS to a number no account owns; kept in unrouted_inbound',
      );
      return outcome;
    }
    this.stats.routed++;
    if (outcome.blocked) this.stats.blocked++;
    this.deps.signals.notify('push');
    return outcome;
  }

  // Routes and stores a whole message (its push event and reply-to-remove block too) in the caller's transaction.
  private async storeWhole(
    trx: Queryable,
    signals: HeldSignals,
    carrier: string,
    sms: InboundSms & { phone: string; dest: string },
    now: number,
  ): Promise<InboundOutcome> {
    const { phone, dest } = sms;
    const accountId = await findNumberOwner(trx, dest);
    if (accountId === undefined) {
      await insertUnrouted(trx, { phone, dest: sms.to, text: sms.text, carrier, receivedAt: sms.at });
      return { routed: false };
    }
    await insertInbound(trx, { accountId, phone, dest, text: sms.text, carrier, receivedAt: sms.at });
    const timeZone = (await timeZones(trx, [accountId])).get(accountId) ?? 'Asia/Jerusalem';
    await recordPushEvent(trx, {
      accountId,
      type: 'incoming_sms',
      orderKey: null,
      now,
      fields: incomingFields({ phone, dest, message: sms.text, date: sms.at, timeZone }),
    });
    let blocked = false;
    if (
      isRemovalRequest(sms.text, this.deps.settings.removalKeywords) &&
      (await receivedReplyToRemoveCampaign(trx, accountId, phone))
    ) {
      blocked =
        (await blockNumbers(trx, signals, { accountId, phones: [phone], source: 'reply-stop', now })).length > 0;
    }
    return { routed: true, accountId, blocked };
  }

  // Drops stale parts at most once a minute.
  private async pruneParts(now: number): Promise<void> {
    if (now - this.lastPrune < 60_000) return;
    this.lastPrune = now;
    await pruneInboundParts(this.deps.store.db, now - PART_TTL_MS);
  }
}
