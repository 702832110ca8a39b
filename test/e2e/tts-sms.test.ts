// Voice sends before voice calls exist, end to end on every store: a `tts` send of type 2 or 3 texts its SMS to
// every destination through the normal dispatch path (a filtered handset reports 15), in JSON and XML, with the
// tts block kept on the campaign; type 4 (call only) is 511 with nothing stored or charged.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { storeTargets } from '../helpers/stores.ts';
import { campaignRow, sendTableCounts, xmlField, xmlStatus } from '../operations/send-helpers.ts';
import { dlrById, eventually, newSender, startDelivery, windowAroundNow, type DeliveryHarness, type Sender } from '../workers/delivery-helpers.ts';

const targets = await storeTargets();
for (const target of targets) {
  describe(`tts sends without voice calls (${target.name})`, () => {
    let h: DeliveryHarness;
    let s: Sender;
    const xmlSms = (inner: string) => h.t.post(`<sms><user><username>${s.username}</username></user><source>Yona</source>${inner}</sms>`,
      { contentType: 'application/xml', token: s.token });

    before(async () => {
      h = await startDelivery(target);
      s = await newSender(h.t, 'speaker', 100);
    });
    after(() => h.close());

    it('type 2 texts every destination now; a filtered (Kosher) handset reports 15, the rest 102', async () => {
      const reply = await s.sms({
        destinations: { phone: [{ $: { id: 'kosher' }, _: '0521110015' }, { $: { id: 'regular' }, _: '0521111234' }] },
        message: 'your appointment is tomorrow', tts: { type: 2, voice: 'ymFemale' },
      });
      assert.deepEqual([reply.status, reply.recipients, reply.credits], [0, 2, 2]);
      assert.equal((await s.balance()).credits, 98);
      const reports = await eventually(async () => {
        const r = await dlrById(s, ['kosher', 'regular']);
        return r.get('kosher')?.status === '15' && r.get('regular')?.status === '102' ? r : undefined;
      }, 8000, 'receipts of both texts');
      assert.equal(reports.get('kosher')!.he_message, 'מספר כשר');
      assert.deepEqual(h.simulator.messages({ to: '972521111234' }).map((m) => m.text), ['your appointment is tomorrow']);
      const campaign = await campaignRow(h.t, reply.campaign_id);
      assert.deepEqual([campaign.kind, campaign.state, JSON.parse(campaign.options).tts], ['tts', 'sent', { type: 2, rate: 0, repeat: 2, voice: 'ymFemale' }]);
    });

    it('type 3 in XML texts now and its report is polled in XML', async () => {
      const sent = await xmlSms('<destinations><phone id="x3">0521112234</phone></destinations><message>spoken and texted</message><tts><type>3</type></tts>');
      assert.equal(xmlStatus(sent.text), 0, sent.text);
      const w = windowAroundNow();
      const dlr = () => h.t.post(`<dlr><user><username>${s.username}</username></user><transactions><external_id>x3</external_id></transactions><from>${w.from}</from><to>${w.to}</to></dlr>`,
        { contentType: 'application/xml', token: s.token });
      const text = await eventually(async () => {
        const r = await dlr();
        return /<external_id>x3<\/external_id><status>102<\/status>/.test(r.text) ? r.text : undefined;
      }, 8000, 'the XML report of the type 3 text');
      assert.match(text, /<transaction><external_id>x3<\/external_id><status>102<\/status>/);
      assert.equal(xmlField(text, 'shipment_id'), xmlField(sent.text, 'shipment_id'));
      assert.deepEqual(h.simulator.messages({ to: '972521112234' }).map((m) => m.text), ['spoken and texted']);
    });

    it('type 4 (call only) is 511 in JSON and XML, with nothing stored and nothing charged', async () => {
      const [counts, balance] = [await sendTableCounts(h.t), await s.balance()];
      const json = await s.sms({ destinations: { phone: '0521113234' }, message: 'call only', tts: { type: '4' } });
      assert.equal(json.status, 511);
      assert.match(json.message, /voice calls are not available on this server yet/i);
      const xml = await xmlSms('<destinations><phone>0521113234</phone></destinations><message>call only</message><tts><type>4</type></tts>');
      assert.equal(xmlStatus(xml.text), 511);
      assert.match(xml.text, /<message>Voice calls are not available on this server yet[^<]*<\/message>/);
      assert.deepEqual(await sendTableCounts(h.t), counts);
      assert.deepEqual(await s.balance(), balance);
      assert.equal(h.simulator.messages({ to: '972521113234' }).length, 0);
    });
  });
}
