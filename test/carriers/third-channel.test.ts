// A third channel is data: registered with its protocol from one folder (test/fixtures/chat-channel), its
// messages are routed by its own routes to its own carriers by the real dispatcher, sent with their payload,
// and reported back through dlr like any text, on every store; texts stay on the SMS carriers meanwhile.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { channelNames, channelOf } from '../../src/domain/channels.ts';
import { insertCampaign } from '../../src/store/campaigns.ts';
import { chatCarriers } from '../fixtures/chat-channel/index.ts';
import { storeTargets } from '../helpers/stores.ts';
import {
  dlrById,
  eventually,
  newSender,
  simCarrier,
  startDelivery,
  type DeliveryHarness,
  type Sender,
} from '../delivery/delivery-helpers.ts';

// A chat message as a send operation of the channel would queue it (no 019 operation sends chats yet).
async function queueChat(h: DeliveryHarness, s: Sender, externalId: string, phone: string, text: string) {
  const db = h.t.service.store.db;
  const account = await db
    .selectFrom('accounts')
    .select('id')
    .where('username', '=', s.username)
    .executeTakeFirstOrThrow();
  const now = Date.now();
  const campaignId = await insertCampaign(db, {
    accountId: Number(account.id),
    name: null,
    kind: 'sms',
    source: 'Yona',
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
      account_id: Number(account.id),
      external_id: externalId,
      phone,
      source: 'Yona',
      text,
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
      channel: channelOf('chat').stored,
    })
    .execute();
  h.t.service.signals.notify('dispatch');
}

const targets = await storeTargets();
for (const target of targets) {
  describe(`a third channel registered from one folder (${target.name})`, () => {
    let h: DeliveryHarness;
    let s: Sender;
    const provider = `chat-${target.name}`;

    before(async () => {
      h = await startDelivery(target, {
        setup: (port) => ({
          carriers: [simCarrier(port), { name: provider, protocol: 'chat-memory' }],
          routes: [{ prefix: '', carrier: provider, channel: 'chat' }],
        }),
      });
      s = await newSender(h.t, 'chatter', 10);
    });
    after(() => h.close());

    it('is a channel beside sms, voice and whatsapp', () => {
      assert.deepEqual(channelNames(), ['sms', 'voice', 'whatsapp', 'chat']);
    });

    it('routes a chat message to its provider, sends it and reports its receipt', async () => {
      await queueChat(h, s, 'c1', '972521270001', 'hello over chat');
      await eventually(async () => (await dlrById(s, ['c1'])).get('c1')?.status === '102' || undefined, 8000, 'c1');
      assert.deepEqual(
        chatCarriers.get(provider)!.sent.map((m) => [m.destination, m.text, m.spoken]),
        [['972521270001', 'hello over chat', undefined]],
      );
      assert.deepEqual(h.simulator.messages({ to: '972521270001' }), []);
      const row = await h.t.service.store.db
        .selectFrom('messages')
        .select(['carrier', 'channel'])
        .where('external_id', '=', 'c1')
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { carrier: provider, channel: 'chat' });
    });

    it('keeps texts on the SMS carrier though the chat route takes every destination', async () => {
      const reply = await s.sms({ destinations: { phone: [{ $: { id: 't1' }, _: '0521270009' }] }, message: 'a text' });
      assert.equal(reply.status, 0, reply.message);
      await eventually(async () => (await dlrById(s, ['t1'])).get('t1')?.status === '102' || undefined, 8000, 't1');
      assert.equal(h.simulator.messages({ to: '972521270009' }).length, 1);
      assert.deepEqual(
        chatCarriers.get(provider)!.sent.map((m) => m.destination),
        ['972521270001'],
      );
    });
  });
}
