// bulk on every store: per-recipient texts in one campaign (JSON and XML), batch-wide timing, temp_bl and
// campaign_name, rejected recipients with reasons, per-item source rules, and the 2500-item limit (status 2).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import {
  campaignRow,
  messagesOf,
  newSender,
  sendTableCounts,
  startSendingService,
  xmlField,
  xmlStatus,
  type Sender,
} from './send-helpers.ts';

const item = (phone: unknown, message: string, source = 'Yona') => ({ source, destinations: { phone }, message });

const targets = await storeTargets();
for (const target of targets) {
  describe(`bulk (${target.name})`, () => {
    let t: TestService;
    let s: Sender;
    let now = Date.UTC(2026, 5, 1, 9, 0);
    const bulk = (doc: Record<string, unknown>, dryRun = false) => s.call('bulk', doc, { dryRun });

    before(async () => {
      t = await startSendingService(target, { clock: () => now });
      s = await newSender(t, 'bulker', 10_000);
    });
    after(() => t.close());

    it('sends each item its own text in one campaign and lists rejected recipients with a reason', async () => {
      const reply = await bulk({
        campaign_name: 'june',
        messages: {
          sms: [
            item({ $: { id: 'a' }, _: '0501111111' }, 'Hi Dana'),
            item({ $: { id: 'b' }, _: '0502222222' }, 'שלום אבי'),
            item({ $: { id: 'c' }, _: '123' }, 'Hi nobody'),
            item({ $: { id: 'd' }, _: '0501111111' }, 'Hi Dana'),
            item('0501111111', 'Hi Dana, second text'),
          ],
        },
      });
      assert.equal(reply.status, 0);
      assert.equal(reply.message, 'SMS will be sent');
      assert.equal(reply.shipment_id, String(reply.campaign_id));
      assert.deepEqual([reply.recipients, reply.credits, reply.encoding], [3, 3, 'ucs2']);
      assert.deepEqual(reply.rejected, [{ phone: '123', id: 'c', reason: 'too_short', status: 9 }]);
      const rows = await messagesOf(t, reply.campaign_id);
      assert.deepEqual(
        rows.map((m) => [m.phone, m.external_id, m.text]),
        [
          ['972501111111', 'a', 'Hi Dana'],
          ['972502222222', 'b', 'שלום אבי'],
          ['972501111111', null, 'Hi Dana, second text'],
        ],
      );
      const campaign = await campaignRow(t, reply.campaign_id);
      assert.deepEqual([campaign.kind, campaign.name, campaign.state], ['bulk', 'june', 'queued']);
    });

    it('takes XML, and JSON lists in the other shapes clients send', async () => {
      const xml = await t.post(
        '<bulk><user><username>bulker</username></user><messages>' +
          '<sms><source>Yona</source><destinations><phone id="1">0501111111</phone></destinations><message>one</message></sms>' +
          '<sms><source>Yona</source><destinations><phone id="2">0502222222</phone></destinations><message>two</message></sms>' +
          '</messages><timing>02/06/26 10:00</timing></bulk>',
        { contentType: 'application/xml', token: s.token },
      );
      assert.equal(xmlStatus(xml.text), 0);
      assert.match(
        xml.text,
        /^<\?xml[^>]*><bulk><status>0<\/status><message>SMS will be sent<\/message><shipment_id>\d+<\/shipment_id>/,
      );
      const campaign = await campaignRow(t, Number(xmlField(xml.text, 'campaign_id')));
      assert.equal(campaign.state, 'scheduled');
      const rows = await messagesOf(t, campaign.id);
      assert.deepEqual(
        rows.map((m) => [m.external_id, m.text, m.state]),
        [
          ['1', 'one', 'scheduled'],
          ['2', 'two', 'scheduled'],
        ],
      );
      const list = await bulk({ messages: [{ sms: item('0501111111', 'x') }, item('0502222222', 'y')] });
      assert.deepEqual([list.status, list.recipients], [0, 2]);
    });

    it('batch-wide temp_bl skips recently messaged numbers (all: 715) and checks its value (714)', async () => {
      now += 60_000;
      assert.equal((await bulk({ messages: { sms: [item('0507770001', 'a')] } })).status, 0);
      now += 3600_000;
      const mixed = await bulk({ temp_bl: '2', messages: { sms: [item('0507770001', 'b'), item('0507770002', 'c')] } });
      assert.deepEqual(
        [mixed.status, mixed.recipients, mixed.rejected],
        [0, 1, [{ phone: '972507770001', reason: 'temp_bl', status: 715 }]],
      );
      assert.equal((await bulk({ temp_bl: '2', messages: { sms: [item('0507770001', 'b')] } })).status, 715);
      assert.equal((await bulk({ temp_bl: '20', messages: { sms: [item('0507770003', 'b')] } })).status, 714);
    });

    it('item rules: source 992 and 515, message 989, missing fields 2, contact lists 7, all invalid 9/933, all blocked 8', async () => {
      assert.equal((await bulk({ messages: { sms: [item('0501111111', 'a', 'Bad+Source')] } })).status, 992);
      const unverified = await bulk({ messages: { sms: [item('0501111111', 'a'), item('0502222222', 'b', 'Other')] } });
      assert.equal(unverified.status, 515);
      assert.match(unverified.message, /messages\.sms\[1\]\.source/);
      assert.equal((await bulk({ messages: { sms: [item('0501111111', 'a'.repeat(1006))] } })).status, 989);
      assert.equal(
        (await bulk({ campaign_name: 'x'.repeat(51), messages: { sms: [item('0501111111', 'a')] } })).status,
        989,
      );
      const missing = await bulk({ messages: { sms: [{ source: 'Yona', destinations: { phone: '0501111111' } }] } });
      assert.deepEqual([missing.status, /messages\.sms\[0\]\.message/.test(missing.message)], [2, true]);
      assert.equal((await bulk({})).status, 2);
      assert.equal(
        (await bulk({ messages: { sms: [{ source: 'Yona', destinations: { cl_id: '1' }, message: 'a' }] } })).status,
        7,
      );
      assert.equal((await bulk({ messages: { sms: [item('12', 'a'), item('0501', 'b')] } })).status, 9);
      assert.equal((await bulk({ messages: { sms: [item('abc', 'a')] } })).status, 933);
      assert.equal((await s.call('addNumBL', { phones: { phone: '0508880001' } })).status, 946);
      assert.equal((await bulk({ messages: { sms: [item('0508880001', 'a')] } })).status, 8);
      assert.equal((await bulk({ timing: 'tomorrow', messages: { sms: [item('0501111111', 'a')] } })).status, 2);
    });

    it('more than 2500 items is status 2 and sends nothing; 2500 are accepted; /api/test stores nothing', async () => {
      const many = (n: number) => ({
        messages: { sms: Array.from({ length: n }, (_, i) => item(`0520${String(i).padStart(6, '0')}`, `text ${i}`)) },
      });
      const counts = await sendTableCounts(t);
      const tooMany = await bulk(many(2501));
      assert.equal(tooMany.status, 2);
      assert.match(tooMany.message, /2500/);
      const dry = await bulk(many(2500), true);
      assert.deepEqual([dry.status, dry.recipients, dry.credits], [0, 2500, 2500]);
      assert.deepEqual(await sendTableCounts(t), counts);
      const full = await bulk(many(2500));
      assert.deepEqual([full.status, full.recipients], [0, 2500]);
      assert.equal((await messagesOf(t, full.campaign_id)).length, 2500);
    });
  });
}
