// The SMS fallbacks of WhatsApp messages: due fallbacks are claimed under a lease (store/whatsapp-fallbacks.ts),
// and each, in one transaction, is cancelled when its WhatsApp message reached the phone (delivered or read) or
// never went (blocked, cancelled), else sent: an SMS campaign of one message from the fallback's verified sender,
// priced and debited as any text (credits at home, money abroad) and queued for the dispatcher. A WhatsApp message
// still waiting in the queue then (no carrier has taken it: none up, throttled, a backlog) is withdrawn in that
// transaction and refunded, so the user gets the SMS alone; one already handed to its carrier goes on (both may be
// reported, each charged once). A fallback the balance cannot pay is cancelled and logged (the WhatsApp message
// stays queued). Every node may run it; a crash leaves the lease to run out.
import { countParts } from '../domain/encoding.ts';
import { smsAgorot, smsCredits } from '../domain/pricing.ts';
import { DELIVERY, type DeliveryStatus } from '../domain/status.ts';
import type { Logger } from '../logger.ts';
import type { LocalSignals } from '../signals.ts';
import { insertCampaign } from '../store/campaigns.ts';
import { inTransaction, type Queryable, type Store } from '../store/engine/db.ts';
import { applyLedgerChange } from '../store/ledger.ts';
import { withdrawUnsentMessage } from '../store/message-withdrawals.ts';
import { insertMessages } from '../store/messages.ts';
import { loadMessagesForUpdate } from '../store/status-events.ts';
import { claimDueFallbacks, settleFallback, type DueFallback } from '../store/whatsapp-fallbacks.ts';
import { campaignMessageIds } from '../store/whatsapp-sends.ts';

/** The statuses of a WhatsApp message that reached the phone: its fallback is cancelled. */
export const REACHED: readonly DeliveryStatus[] = [
  DELIVERY.WHATSAPP_DELIVERED,
  DELIVERY.WHATSAPP_READ,
  DELIVERY.DELIVERED,
];

const LEASE_MS = 30_000;
const BATCH = 100;

class ShortOfBalance extends Error {}
/** Another node (whose lease ran out while it worked) settled the fallback first: this one's work is rolled back. */
class AlreadySettled extends Error {}

export interface FallbackWorkerDeps {
  store: Store;
  logger: Logger;
  signals: LocalSignals;
  clock: () => number;
  intlPriceAgorot: number;
}

/** Settles the fallbacks due now; returns how many it settled. */
export async function runDueFallbacks(deps: FallbackWorkerDeps): Promise<number> {
  const now = deps.clock();
  const due = await claimDueFallbacks(deps.store.db, { now, leaseMs: LEASE_MS, limit: BATCH, reached: REACHED });
  return settleClaimedFallbacks(deps, due, now);
}

/**
 * Settles fallbacks this node claimed, each in a transaction of its own that reads its WhatsApp message again
 * (locked on PostgreSQL, as the receipts worker locks it): a delivery recorded after the claim still cancels it.
 */
export async function settleClaimedFallbacks(
  deps: FallbackWorkerDeps,
  due: readonly DueFallback[],
  now: number,
): Promise<number> {
  let settled = 0;
  let sent = 0;
  for (const f of due) {
    try {
      const outcome = await inTransaction(deps.store.db, (db) => settle(db, f, deps, now));
      settled++;
      if (outcome === 'sent') sent++;
    } catch (err) {
      if (err instanceof AlreadySettled) continue;
      if (!(err instanceof ShortOfBalance)) throw err;
      const cancelled = await inTransaction(deps.store.db, (db) =>
        settleFallback(db, f.messageId, { state: 'cancelled' }, now),
      );
      if (!cancelled) continue;
      deps.logger.warn(
        { event: 'whatsapp.fallback.unpaid', message: f.messageId, account: f.accountId },
        'SMS fallback not sent: the balance does not cover it',
      );
      settled++;
    }
  }
  if (sent > 0) deps.signals.notify('dispatch');
  return settled;
}

async function settle(
  db: Queryable,
  f: DueFallback,
  deps: FallbackWorkerDeps,
  now: number,
): Promise<'sent' | 'cancelled'> {
  // The message as it stands now: a status recorded since the claim counts.
  const [message] = await loadMessagesForUpdate(db, [f.messageId]);
  const reached = message?.status != null && REACHED.includes(message.status);
  const notSent = !message || message.state === 'skipped' || message.state === 'cancelled';
  if (reached || notSent) {
    if (!(await settleFallback(db, f.messageId, { state: 'cancelled' }, now))) throw new AlreadySettled();
    return 'cancelled';
  }
  const international = !f.phone.startsWith('972');
  const { parts } = countParts(f.text);
  const credits = smsCredits(parts, international, false);
  const agorot = smsAgorot(parts, international, false, deps.intlPriceAgorot);
  const campaignId = await insertCampaign(db, {
    accountId: f.accountId,
    name: null,
    kind: 'whatsapp-fallback',
    source: f.source,
    state: 'queued',
    scheduledAt: null,
    recipients: 1,
    creditsCharged: credits,
    agorotCharged: agorot,
    options: { whatsapp_message: f.messageId, whatsapp_campaign: f.campaignId },
    now,
  });
  const common = { campaignId, accountId: f.accountId, state: 'queued' as const, nextAttemptAt: now, now };
  await insertMessages(db, { ...common, priority: f.priority }, [
    {
      phone: f.phone,
      externalId: f.externalId,
      source: f.source,
      text: f.text,
      parts,
      costCredits: credits,
      costAgorot: agorot,
      unsubscribeCode: null,
      sealed: f.sealed,
    },
  ]);
  const debit = {
    accountId: f.accountId,
    reason: `send: SMS fallback of WhatsApp message ${f.messageId}, campaign ${campaignId}`,
    refType: 'campaign',
    refId: campaignId,
    now,
  };
  if (!(await applyLedgerChange(db, { ...debit, currency: 'credits', amount: -credits }))) throw new ShortOfBalance();
  if (!(await applyLedgerChange(db, { ...debit, currency: 'international', amount: -agorot })))
    throw new ShortOfBalance();
  const [smsMessageId] = await campaignMessageIds(db, campaignId);
  if (!(await settleFallback(db, f.messageId, { state: 'sent', smsMessageId }, now))) throw new AlreadySettled();
  // Still in Yona's queue (the row is locked on PostgreSQL; the update is conditional on its state): withdrawn.
  const withdrawn = message && !f.immediate ? await withdrawUnsentMessage(db, message, now) : false;
  deps.logger.info(
    {
      event: 'whatsapp.fallback.sent',
      message: f.messageId,
      sms: smsMessageId,
      campaign: campaignId,
      whatsappWithdrawn: withdrawn !== false,
    },
    withdrawn
      ? 'WhatsApp message not handed to a carrier in time: withdrawn, its SMS fallback is queued'
      : 'WhatsApp message not delivered: its SMS fallback is queued',
  );
  return 'sent';
}
