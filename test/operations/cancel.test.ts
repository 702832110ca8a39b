// cancel on every store, with every transition of the spec's table: scheduled -> cancelled (0, unsent
// messages refunded), by name every scheduled match (count in `cancelled`), 955 already cancelled, 966 already
// sent, 977 unknown or another customer's, 970 when its messages already left (nothing changes), in JSON and
// XML; a scheduled voice send (tts) cancels like any other.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { insertPushRegistration } from '../../src/store/push.ts';
import type { TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import {
  campaignRow,
  messagesOf,
  newSender,
  startSendingService,
  xmlField,
  xmlStatus,
  type Sender,
} from './send-helpers.ts';

const targets = await storeTargets();
for (const target of targets) {
  describe(`cancel (${target.name})`, () => {
    let t: TestService;
    let s: Sender;
    let other: Sender;
    const later = (doc: Record<string, unknown> = {}) =>
      s.sms({ destinations: { phone: ['0501234567', '0521234567'] }, timing: '01/01/35 10:00', ...doc });

    before(async () => {
      t = await startSendingService(target);
      s = await newSender(t, 'canceller', 100);
      other = await newSender(t, 'stranger', 100);
    });
    after(() => t.close());

    it('cancels a scheduled campaign by id, refunding its messages; cancelling again is 955', async () => {
      const sent = await later({ message: 'a'.repeat(200) });
      assert.equal(sent.status, 0);
      assert.equal((await s.balance()).credits, 96);
      const reply = await s.call('cancel', { campaign_id: sent.campaign_id });
      assert.deepEqual([reply.status, reply.cancelled, reply.refunded_credits], [0, 1, 4]);
      assert.match(reply.message, /cancelled/);
      assert.equal((await s.balance()).credits, 100);
      const campaign = await campaignRow(t, sent.campaign_id);
      assert.equal(campaign.state, 'cancelled');
      assert.ok(campaign.cancelled_at);
      assert.deepEqual(
        (await messagesOf(t, sent.campaign_id)).map((m) => [m.state, Number(m.cost_credits)]),
        [
          ['cancelled', 0],
          ['cancelled', 0],
        ],
      );
      const again = await s.call('cancel', { campaign_id: String(sent.campaign_id) });
      assert.equal(again.status, 955);
      assert.equal((await s.balance()).credits, 100, 'no second refund');
    });

    it('cancelled messages are reported as 104 to a dlr URL; international money refunded is in the reply', async () => {
      const intl = await newSender(t, 'cancelintl', 100, ['--international', '5']);
      const accountId = await t.accountId('cancelintl');
      await insertPushRegistration(t.service.store.db, {
        accountId,
        type: 'dlr',
        url: 'https://push.example.com/dlr',
        now: Date.now(),
      });
      const sent = await intl.sms({
        destinations: { phone: [{ $: { id: 'abroad' }, _: '+33612345678' }, '0501234567'] },
        includes_international: '1',
        timing: '01/01/35 10:00',
      });
      assert.equal(sent.status, 0);
      const reply = await intl.call('cancel', { campaign_id: sent.campaign_id });
      assert.deepEqual([reply.status, reply.refunded_credits, reply.refunded_international], [0, 1, '0.25']);
      assert.deepEqual(await intl.balance(), { credits: 100, agorot: 500 });
      const events = await t.service.store.db
        .selectFrom('push_events')
        .select('payload')
        .where('account_id', '=', accountId)
        .orderBy('id')
        .execute();
      assert.deepEqual(
        events
          .map((e) => JSON.parse(e.payload))
          .map((r) => [r.external_id, r.phone, r.status, r.shipment_id])
          .sort(),
        [
          ['', '972501234567', '104', String(sent.campaign_id)],
          ['abroad', '33612345678', '104', String(sent.campaign_id)],
        ],
      );
    });

    it("a campaign already on its way or sent is 966; unknown or another customer's is 977 and stays untouched", async () => {
      const now = await s.sms({ destinations: { phone: '0501234567' } });
      assert.equal((await s.call('cancel', { campaign_id: now.campaign_id })).status, 966);
      await t.service.store.db
        .updateTable('campaigns')
        .set({ state: 'sent' })
        .where('id', '=', now.campaign_id)
        .execute();
      assert.equal((await s.call('cancel', { campaign_id: now.campaign_id })).status, 966);
      assert.equal((await s.call('cancel', { campaign_id: 987654 })).status, 977);
      const theirs = await other.sms({ destinations: { phone: '0501234567' }, timing: '01/01/35 10:00' });
      const reply = await s.call('cancel', { campaign_id: theirs.campaign_id });
      assert.equal(reply.status, 977);
      assert.doesNotMatch(reply.message, /stranger/);
      assert.equal((await campaignRow(t, theirs.campaign_id)).state, 'scheduled');
      assert.equal((await s.call('cancel', { campaign_name: 'nothing-like-this' })).status, 977);
    });

    it('by name cancels every scheduled campaign with that name and reports how many', async () => {
      const a = await later({ campaign_name: 'promo' });
      const b = await later({ campaign_name: 'promo' });
      const c = await s.sms({ destinations: { phone: '0501234567' }, campaign_name: 'promo' });
      const theirs = await other.sms({
        destinations: { phone: '0501234567' },
        timing: '01/01/35 10:00',
        campaign_name: 'promo',
      });
      const reply = await s.call('cancel', { campaign_name: 'promo' });
      assert.deepEqual([reply.status, reply.cancelled], [0, 2]);
      assert.deepEqual(
        await Promise.all([a, b, c, theirs].map(async (x) => (await campaignRow(t, x.campaign_id)).state)),
        ['cancelled', 'cancelled', 'queued', 'scheduled'],
      );
      assert.equal(
        (await s.call('cancel', { campaign_name: 'promo' })).status,
        966,
        'no scheduled match left, one went out',
      );
      await later({ campaign_name: 'only-cancelled' });
      assert.equal((await s.call('cancel', { campaign_name: 'only-cancelled' })).status, 0);
      assert.equal((await s.call('cancel', { campaign_name: 'only-cancelled' })).status, 955);
      const xml = await t.post(
        '<cancel><user><username>canceller</username></user><campaign_name>promo-xml</campaign_name></cancel>',
        { contentType: 'application/xml', token: s.token },
      );
      assert.equal(xmlStatus(xml.text), 977);
      await later({ campaign_name: 'promo-xml' });
      const ok = await t.post(
        '<cancel><user><username>canceller</username></user><campaign_name>promo-xml</campaign_name></cancel>',
        { contentType: 'application/xml', token: s.token },
      );
      assert.deepEqual([xmlStatus(ok.text), xmlField(ok.text, 'cancelled')], [0, '1']);
    });

    it('a scheduled campaign whose messages already left the queue is 970 and nothing changes', async () => {
      const sent = await later();
      const [first] = await messagesOf(t, sent.campaign_id);
      await t.service.store.db.updateTable('messages').set({ state: 'submitted' }).where('id', '=', first.id).execute();
      const before = await s.balance();
      const reply = await s.call('cancel', { campaign_id: sent.campaign_id });
      assert.equal(reply.status, 970);
      assert.equal((await campaignRow(t, sent.campaign_id)).state, 'scheduled');
      assert.deepEqual(
        (await messagesOf(t, sent.campaign_id)).map((m) => m.state),
        ['submitted', 'scheduled'],
      );
      assert.deepEqual(await s.balance(), before);
      const xml = await t.post(
        `<cancel><user><username>canceller</username></user><campaign_id>${sent.campaign_id}</campaign_id></cancel>`,
        { contentType: 'application/xml', token: s.token },
      );
      assert.equal(xmlStatus(xml.text), 970);
      assert.match(
        xml.text,
        /<message>Campaign not cancelled, contact support: campaign \d+ has 1 messages already submitted<\/message>/,
      );
      assert.equal((await campaignRow(t, sent.campaign_id)).state, 'scheduled');
      assert.deepEqual(await s.balance(), before);
    });

    it('a scheduled voice send (tts) is cancelled like any other, in JSON and XML', async () => {
      const json = await later({ tts: { type: 3 } });
      const xmlSent = await t.post(
        '<sms><user><username>canceller</username></user><source>Yona</source><destinations><phone>0501234567</phone></destinations>' +
          '<message>spoken</message><timing>01/01/35 10:00</timing><tts><type>2</type></tts></sms>',
        { contentType: 'application/xml', token: s.token },
      );
      assert.deepEqual([json.status, xmlStatus(xmlSent.text)], [0, 0]);
      const xmlId = Number(xmlField(xmlSent.text, 'campaign_id'));
      const before = (await s.balance()).credits;
      const reply = await s.call('cancel', { campaign_id: json.campaign_id });
      // Type 3: two texts (1 credit each) and two calls (a started minute each, 2 credits).
      assert.deepEqual([reply.status, reply.cancelled, reply.refunded_credits], [0, 1, 6]);
      const xml = await t.post(
        `<cancel><user><username>canceller</username></user><campaign_id>${xmlId}</campaign_id></cancel>`,
        { contentType: 'application/xml', token: s.token },
      );
      assert.deepEqual([xmlStatus(xml.text), xmlField(xml.text, 'refunded_credits')], [0, '1']);
      assert.equal((await s.balance()).credits, before + 7);
      for (const id of [json.campaign_id, xmlId]) {
        assert.deepEqual([(await campaignRow(t, id)).kind, (await campaignRow(t, id)).state], ['tts', 'cancelled']);
        for (const m of await messagesOf(t, id)) assert.deepEqual([m.state, m.status], ['cancelled', 104]);
      }
    });

    it('without campaign_id or campaign_name it is 2; /api/test cancels nothing', async () => {
      assert.equal((await s.call('cancel', {})).status, 2);
      const sent = await later();
      const dry = await s.call('cancel', { campaign_id: sent.campaign_id }, { dryRun: true });
      assert.equal(dry.status, 0);
      assert.equal((await campaignRow(t, sent.campaign_id)).state, 'scheduled');
    });
  });
}
