// Voice sends on a server with no voice trunk, end to end on every store: a `tts` send of type 2 or 3 texts its
// SMS through the normal dispatch path (a filtered handset reports 15), in JSON and XML, with the tts block kept
// on the campaign; the calls (type 3's and type 4's) fail with status 1 in dlr and are refunded.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { storeTargets } from '../helpers/stores.ts';
import { campaignRow, xmlField, xmlStatus } from '../operations/send-helpers.ts';
import {
  dlrById,
  eventually,
  newSender,
  startDelivery,
  windowAroundNow,
  type DeliveryHarness,
  type Sender,
} from '../delivery/delivery-helpers.ts';

const targets = await storeTargets();
for (const target of targets) {
  describe(`tts sends on a server without a voice trunk (${target.name})`, () => {
    let h: DeliveryHarness;
    let s: Sender;
    const xmlSms = (inner: string) =>
      h.t.post(`<sms><user><username>${s.username}</username></user><source>Yona</source>${inner}</sms>`, {
        contentType: 'application/xml',
        token: s.token,
      });

    before(async () => {
      h = await startDelivery(target);
      s = await newSender(h.t, 'speaker', 100);
    });
    after(() => h.close());

    it('type 2 texts every destination now; a filtered (Kosher) handset reports 15 and its follow-up call fails (1) without a trunk', async () => {
      const reply = await s.sms({
        destinations: {
          phone: [
            { $: { id: 'kosher' }, _: '0521110015' },
            { $: { id: 'regular' }, _: '0521111234' },
          ],
        },
        message: 'your appointment is tomorrow',
        tts: { type: 2, voice: 'ymFemale' },
      });
      assert.deepEqual([reply.status, reply.recipients, reply.credits], [0, 2, 2]);
      assert.equal((await s.balance()).credits, 98);
      // The kosher phone's text and its follow-up call share the external id: dlr lists both.
      const window = windowAroundNow();
      const reports = await eventually(
        async () => {
          const r = await s.call('dlr', { transactions: { external_id: ['kosher', 'regular'] }, ...window });
          const list = r.transactions as Array<Record<string, string>>;
          const of = (id: string) =>
            list
              .filter((x) => x.external_id === id)
              .map((x) => x.status)
              .sort();
          return of('kosher').join() === '1,15' && of('regular').join() === '102' ? list : undefined;
        },
        8000,
        'the receipts of both texts and the failed follow-up call',
      );
      assert.equal(reports.find((x) => x.status === '15')!.he_message, 'מספר כשר');
      assert.deepEqual(
        h.simulator.messages({ to: '972521111234' }).map((m) => m.text),
        ['your appointment is tomorrow'],
      );
      const campaign = await campaignRow(h.t, reply.campaign_id);
      assert.deepEqual(
        [campaign.kind, JSON.parse(campaign.options).tts],
        ['tts', { type: 2, rate: 0, repeat: 2, voice: 'ymFemale' }],
      );
      await eventually(
        async () => ((await s.balance()).credits === 98 ? true : undefined),
        8000,
        'the failed call refunded',
      );
    });

    it('type 3 in XML texts now and its report is polled in XML; its call fails without a trunk and is refunded', async () => {
      const before = await s.balance();
      const sent = await xmlSms(
        '<destinations><phone id="x3">0521112234</phone></destinations><message>spoken and texted</message><tts><type>3</type></tts>',
      );
      assert.equal(xmlStatus(sent.text), 0, sent.text);
      const w = windowAroundNow();
      const dlr = () =>
        h.t.post(
          `<dlr><user><username>${s.username}</username></user><transactions><external_id>x3</external_id></transactions><from>${w.from}</from><to>${w.to}</to></dlr>`,
          { contentType: 'application/xml', token: s.token },
        );
      const text = await eventually(
        async () => {
          const r = await dlr();
          return /<external_id>x3<\/external_id><status>102<\/status>/.test(r.text) ? r.text : undefined;
        },
        8000,
        'the XML report of the type 3 text',
      );
      assert.match(text, /<transaction><external_id>x3<\/external_id><status>102<\/status>/);
      assert.equal(xmlField(text, 'shipment_id'), xmlField(sent.text, 'shipment_id'));
      assert.deepEqual(
        h.simulator.messages({ to: '972521112234' }).map((m) => m.text),
        ['spoken and texted'],
      );
      // The call shares the external id: once it has failed (1), only the text's cost stays charged.
      await eventually(
        async () => {
          const r = await dlr();
          return /<external_id>x3<\/external_id><status>1<\/status>/.test(r.text) ? true : undefined;
        },
        8000,
        'the failed call of the type 3 send',
      );
      await eventually(
        async () => ((await s.balance()).credits === before.credits - 1 ? true : undefined),
        8000,
        'the call refunded, the text charged',
      );
    });

    it('type 4 (call only) on a server without a voice trunk: accepted in JSON and XML, its calls fail (1, in dlr) and are refunded; nothing is texted', async () => {
      const balance = await s.balance();
      const json = await s.sms({
        destinations: { phone: [{ $: { id: 'c4' }, _: '0521113234' }] },
        message: 'call only',
        tts: { type: '4' },
      });
      assert.deepEqual([json.status, json.calls], [0, 1]);
      const xml = await xmlSms(
        '<destinations><phone id="c4x">0521113235</phone></destinations><message>call only</message><tts><type>4</type></tts>',
      );
      assert.equal(xmlStatus(xml.text), 0, xml.text);
      assert.equal(xmlField(xml.text, 'calls'), '1');
      const reports = await eventually(
        async () => {
          const r = await dlrById(s, ['c4', 'c4x']);
          return r.get('c4')?.status === '1' && r.get('c4x')?.status === '1' ? r : undefined;
        },
        8000,
        'both calls failed',
      );
      assert.equal(reports.size, 2);
      await eventually(
        async () => ((await s.balance()).credits === balance.credits ? true : undefined),
        8000,
        'the refunds',
      );
      assert.equal(h.simulator.messages({ to: '972521113234' }).length, 0);
    });
  });
}
