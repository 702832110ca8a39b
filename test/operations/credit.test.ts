// Credit on every store: parts x recipients (GSM-7 160/153, UCS-2 70/67), 4 when short with nothing
// created, 50 concurrent sends against a balance for 10, and /api/test answering the figures with nothing stored.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import {
  assertTenOfFiftyAccepted,
  messagesOf,
  newSender,
  sendTableCounts,
  startSendingService,
  xmlField,
  xmlStatus,
  type Sender,
} from './send-helpers.ts';

const targets = await storeTargets();
for (const target of targets) {
  describe(`sms credit (${target.name})`, () => {
    let t: TestService;
    let s: Sender;

    before(async () => {
      t = await startSendingService(target);
      s = await newSender(t, 'payer', 1000);
    });
    after(() => t.close());

    it('costs parts x recipients: GSM-7 160 in one part, 161 in two; Hebrew 70 in one, 71 in two', async () => {
      const cases: Array<[string, number, string]> = [
        ['a'.repeat(160), 1, 'gsm7'],
        ['a'.repeat(161), 2, 'gsm7'],
        ['a'.repeat(306), 2, 'gsm7'],
        ['a'.repeat(307), 3, 'gsm7'],
        ['{'.repeat(80), 1, 'gsm7'],
        ['€'.repeat(81), 2, 'gsm7'],
        ['ש'.repeat(70), 1, 'ucs2'],
        ['ש'.repeat(71), 2, 'ucs2'],
        ['ש'.repeat(135), 3, 'ucs2'],
      ];
      for (const [message, parts, encoding] of cases) {
        const before = (await s.balance()).credits;
        const reply = await s.sms({ destinations: { phone: ['0501234567', '0521234567', '0531234567'] }, message });
        assert.deepEqual(
          [reply.status, reply.parts, reply.encoding, reply.credits],
          [0, parts, encoding, 3 * parts],
          message.slice(0, 5),
        );
        assert.equal((await s.balance()).credits, before - 3 * parts);
        const rows = await messagesOf(t, reply.campaign_id);
        assert.deepEqual(
          rows.map((m) => Number(m.parts)),
          [parts, parts, parts],
        );
      }
    });

    it('not enough credit is 4 and creates nothing', async () => {
      const poor = await newSender(t, 'poor', 5);
      const counts = await sendTableCounts(t);
      const reply = await poor.sms({
        destinations: { phone: ['0501234567', '0521234567', '0531234567'] },
        message: 'a'.repeat(200),
      });
      assert.equal(reply.status, 4);
      assert.deepEqual(await sendTableCounts(t), counts);
      assert.equal((await poor.balance()).credits, 5);
      const xml = await t.post(
        '<sms><user><username>poor</username></user><source>Yona</source><destinations><phone>0501234567</phone>' +
          '<phone>0521234567</phone><phone>0531234567</phone></destinations><message>hi</message><campaign_name>c</campaign_name></sms>',
        { contentType: 'application/xml', token: poor.token },
      );
      assert.equal(xmlStatus(xml.text), 0, 'three one-part messages fit in five credits');
      assert.equal((await poor.balance()).credits, 2);
    });

    it('50 concurrent sends against a balance for 10 leave it at exactly 0 with exactly 10 accepted', async () => {
      const ten = await newSender(t, 'tencredits', 10);
      const replies = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          ten.sms({ destinations: { phone: `05000000${String(i).padStart(2, '0')}` } }),
        ),
      );
      await assertTenOfFiftyAccepted(
        t,
        ten,
        replies.map((r) => r.status),
      );
    });

    it('/api/test answers the real shape and the figures, and stores nothing', async () => {
      const intl = await newSender(t, 'dryintl', 10, ['--international', '1']);
      const counts = await sendTableCounts(t);
      const balance = await s.balance();
      const reply = await s.sms(
        {
          destinations: { phone: ['0501234567', '0501234567', '12', '0521234567'] },
          message: 'ש'.repeat(71),
          campaign_name: 'dry',
        },
        { dryRun: true },
      );
      assert.equal(reply.status, 0);
      assert.equal(reply.message, 'SMS will be sent');
      assert.deepEqual(
        [reply.shipment_id, reply.campaign_id],
        ['0', 0],
        "a dry run names no campaign (its id would be the next real one's)",
      );
      assert.deepEqual([reply.recipients, reply.parts, reply.encoding, reply.credits], [2, 2, 'ucs2', 4]);
      assert.deepEqual(reply.rejected, [{ phone: '12', reason: 'too_short', status: 9 }]);
      const xml = await t.post(
        '<sms><user><username>payer</username></user><source>Yona</source><destinations><phone>0501234567</phone></destinations>' +
          '<message>hi</message></sms>',
        { contentType: 'application/xml', token: s.token, dryRun: true },
      );
      assert.deepEqual(
        [xmlStatus(xml.text), xmlField(xml.text, 'credits'), xmlField(xml.text, 'encoding')],
        [0, '1', 'gsm7'],
      );
      const foreign = await intl.sms(
        { destinations: { phone: '+33612345678' }, includes_international: '1', message: 'a'.repeat(200) },
        { dryRun: true },
      );
      assert.deepEqual([foreign.status, foreign.credits, foreign.international_cost], [0, 0, '0.50']);
      assert.equal(
        (await s.sms({ destinations: { phone: '0501234567' }, message: 'a'.repeat(1006) }, { dryRun: true })).status,
        989,
      );
      assert.equal(
        (
          await intl.sms(
            { destinations: { phone: ['0501234567', '0521234567'] }, message: 'a'.repeat(1000) },
            { dryRun: true },
          )
        ).status,
        4,
      );
      assert.deepEqual(await sendTableCounts(t), counts);
      assert.deepEqual(await s.balance(), balance);
    });
  });
}
