// Rejected destinations on every store: a reply lists at most the first 1,000 and counts every one
// (rejected_total, rejected_by_reason) for sms to a list, bulk, /api/test and the status 933 of a send that
// keeps no one, in JSON and XML; the destinations that can be sent to still are.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import {
  messagesOf,
  newSender,
  sendTableCounts,
  startSendingService,
  xmlField,
  xmlStatus,
  type Sender,
} from './send-helpers.ts';

const LANDLINES = 1200;
/** `count` distinct Tel Aviv landlines, national form (03-2200000 on). */
const landlines = (count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => `0322${String(from + i).padStart(5, '0')}`);

const targets = await storeTargets();
for (const target of targets) {
  describe(`rejected destinations beyond 1,000 (${target.name})`, () => {
    let t: TestService;
    let s: Sender;
    let listId: number;
    const byReason = { not_mobile: LANDLINES, international_not_allowed: 1, blocked: 1 };

    before(async () => {
      t = await startSendingService(target);
      s = await newSender(t, 'rejecter');
      // Landlines first, then a foreign number, a blocked mobile and the one mobile that can be sent to.
      const phones = [...landlines(LANDLINES), '+33612345678', '0501110001', '0501110002'];
      const list = await s.call('newCL', {
        cl: { name: 'mostly landlines', destinations: { destination: phones.map((phone) => ({ phone })) } },
      });
      assert.equal(list.status, 0);
      listId = Number(list.id);
      assert.equal((await s.call('addNumBL', { phones: { phone: '0501110001' } })).status, 946);
    });
    after(() => t.close());

    it('sms to a list: the reply lists the first 1,000, counts all of them by reason, and the mobile is sent', async () => {
      const reply = await s.sms({ destinations: { cl_id: listId } });
      assert.deepEqual([reply.status, reply.recipients, reply.credits], [0, 1, 1]);
      assert.equal(reply.rejected.length, 1000);
      assert.deepEqual(reply.rejected[0], { phone: '97232200000', reason: 'not_mobile', status: 933 });
      assert.deepEqual(reply.rejected[999], { phone: '97232200999', reason: 'not_mobile', status: 933 });
      assert.equal(reply.rejected_total, LANDLINES + 2);
      assert.deepEqual(reply.rejected_by_reason, byReason);
      assert.deepEqual(
        (await messagesOf(t, reply.campaign_id)).map((m) => m.phone),
        ['972501110002'],
      );
      assert.equal((await s.balance()).credits, 999);
    });

    it('the same in XML: 1,000 recipient items, rejected_total and rejected_by_reason as elements', async () => {
      const res = await t.post(
        `<sms><user><username>rejecter</username></user><source>Yona</source><destinations><cl_id>${listId}</cl_id></destinations>` +
          '<message>hello</message></sms>',
        { contentType: 'application/xml', token: s.token },
      );
      assert.equal(xmlStatus(res.text), 0, res.text.slice(0, 300));
      assert.equal(xmlField(res.text, 'recipients'), '1');
      assert.equal(res.text.match(/<recipient>/g)?.length, 1000);
      assert.match(
        res.text,
        /<\/rejected><rejected_total>1202<\/rejected_total><rejected_by_reason><not_mobile>1200<\/not_mobile>/,
      );
      assert.match(
        res.text,
        /<international_not_allowed>1<\/international_not_allowed><blocked>1<\/blocked><\/rejected_by_reason>/,
      );
    });

    it('/api/test answers the same figures and stores nothing', async () => {
      const counts = await sendTableCounts(t);
      const dry = await s.sms({ destinations: { cl_id: listId } }, { dryRun: true });
      assert.deepEqual(
        [dry.status, dry.recipients, dry.rejected.length, dry.rejected_total],
        [0, 1, 1000, LANDLINES + 2],
      );
      assert.deepEqual(dry.rejected_by_reason, byReason);
      assert.deepEqual(await sendTableCounts(t), counts);
    });

    it('a list of landlines only is 933 with the first 1,000 listed and all of them counted', async () => {
      const list = await s.call('newCL', {
        cl: { name: 'landlines', destinations: { destination: landlines(1001, 5000).map((phone) => ({ phone })) } },
      });
      const counts = await sendTableCounts(t);
      const reply = await s.sms({ destinations: { cl_id: list.id } });
      assert.deepEqual(
        [reply.status, reply.rejected.length, reply.rejected_total, reply.rejected_by_reason],
        [933, 1000, 1001, { not_mobile: 1001 }],
      );
      assert.deepEqual(await sendTableCounts(t), counts);
    });

    it('bulk: the same limit and counts across items', async () => {
      const reply = await s.call('bulk', {
        messages: {
          sms: [
            { source: 'Yona', message: 'one', destinations: { phone: [...landlines(1100), '0501110003'] } },
            { source: 'Yona', message: 'two', destinations: { phone: [{ $: { id: 'short' }, _: '05012' }] } },
          ],
        },
      });
      assert.deepEqual(
        [reply.status, reply.recipients, reply.rejected.length, reply.rejected_total],
        [0, 1, 1000, 1101],
      );
      assert.deepEqual(reply.rejected_by_reason, { not_mobile: 1100, too_short: 1 });
      assert.deepEqual(
        (await messagesOf(t, reply.campaign_id)).map((m) => [m.phone, m.text]),
        [['972501110003', 'one']],
      );
    });

    it('a send with one rejected destination lists it and counts it; a clean send has none of the three fields', async () => {
      const reply = await s.sms({ destinations: { phone: ['0501110004', '031234567'] } });
      assert.deepEqual(
        [reply.status, reply.rejected, reply.rejected_total, reply.rejected_by_reason],
        [0, [{ phone: '031234567', reason: 'not_mobile', status: 933 }], 1, { not_mobile: 1 }],
      );
      const clean = await s.sms({ destinations: { phone: '0501110005' } });
      assert.deepEqual(
        [clean.status, clean.rejected, clean.rejected_total, clean.rejected_by_reason],
        [0, undefined, undefined, undefined],
      );
    });
  });
}
