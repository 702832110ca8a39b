// WhatsApp messages as a send of the channel queues them (text, or a template with its parameters), for tests of
// the carrier below the API's WhatsApp endpoints.
import { channelOf } from '../../src/domain/channels.ts';
import { insertCampaign } from '../../src/store/campaigns.ts';
import type { Store } from '../../src/store/engine/db.ts';
import type { TestService } from './service.ts';

export interface QueuedWhatsapp {
  accountId: number;
  source: string;
  externalId: string;
  phone: string;
  text: string;
  template?: { name: string; language: string; parameters: string[] };
}

/** Queues one WhatsApp message of the account and wakes the dispatcher. */
export async function queueWhatsapp(t: TestService, m: QueuedWhatsapp): Promise<void> {
  await queueWhatsappIn(t.service.store.db, m);
  t.service.signals.notify('dispatch');
}

/** Queues one WhatsApp message in a store (a server's dispatcher finds it when it next looks). */
export async function queueWhatsappIn(db: Store['db'], m: QueuedWhatsapp): Promise<void> {
  const now = Date.now();
  const campaignId = await insertCampaign(db, {
    accountId: m.accountId,
    name: null,
    kind: 'sms',
    source: m.source,
    state: 'queued',
    scheduledAt: null,
    recipients: 1,
    creditsCharged: 0,
    agorotCharged: 0,
    options: {},
    now,
  });
  await db
    .insertInto('messages')
    .values({
      campaign_id: campaignId,
      account_id: m.accountId,
      external_id: m.externalId,
      phone: m.phone,
      source: m.source,
      text: m.text,
      parts: 1,
      cost_credits: 0,
      cost_agorot: 0,
      state: 'queued',
      status: null,
      status_at: null,
      attempts: 0,
      next_attempt_at: now,
      lease_until: null,
      carrier: null,
      error: null,
      created_at: now,
      submitted_at: null,
      channel: channelOf('whatsapp').stored,
      ...(m.template ? { template: JSON.stringify(m.template) } : {}),
    })
    .execute();
}
