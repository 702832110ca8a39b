// A number blocked after a scheduled list send was accepted, in XML on every store, through the running
// components (the scheduler releasing on an injected clock, the dispatcher, the bundled SMSC simulator over
// SMPP): the blocked contact is reported with status 201 by dlrByDate, its credit is refunded, and the other
// contacts are sent and delivered (102). List contacts carry no external id, so dlrByDate is their report.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fromZoned } from '../../src/domain/dates.ts';
import { schedulerComponent } from '../../src/delivery/scheduler.ts';
import { storeTargets } from '../helpers/stores.ts';
import { xmlField, xmlStatus } from '../operations/send-helpers.ts';
import {
  eventually,
  newSender,
  startDelivery,
  type DeliveryHarness,
  type Sender,
} from '../delivery/delivery-helpers.ts';

const at = (hour: number, minute = 0) =>
  fromZoned({ year: 2027, month: 3, day: 2, hour, minute, second: 0 }, 'Asia/Jerusalem');
const SENT = ['972521110011', '972521110021'];
const BLOCKED = '972521110031';

const targets = await storeTargets();
for (const target of targets) {
  describe(`blocklist in an already scheduled list send, XML (${target.name})`, () => {
    let h: DeliveryHarness;
    let s: Sender;
    let now = at(9);
    const xml = async (root: string, inner: string) => {
      const res = await h.t.post(
        `<?xml version="1.0" encoding="UTF-8"?><${root}><user><username>planner</username></user>${inner}</${root}>`,
        { contentType: 'application/xml', token: s.token },
      );
      assert.equal(res.httpStatus, 200);
      return res.text;
    };
    const balance = async () => xmlField(await xml('balance', ''), 'balance');
    /** dlrByDate in XML over a window (by default the release minute): [phone, status] of each report, sorted. */
    const reports = async (window = { from: '02/03/27 10:00', to: '02/03/27 10:01' }) => {
      const text = await xml('dlrByDate', `<from>${window.from}</from><to>${window.to}</to>`);
      assert.equal(xmlStatus(text), 0, text);
      return [...text.matchAll(/<transaction>(.*?)<\/transaction>/g)]
        .map(([, r]) => [xmlField(r, 'phone'), xmlField(r, 'status')])
        .sort();
    };

    before(async () => {
      h = await startDelivery(target, { clock: () => now, components: [schedulerComponent({ intervalMs: 20 })] });
      s = await newSender(h.t, 'planner', 100);
    });
    after(() => h.close());

    it('the contact blocked before release gets 201 in dlrByDate and is refunded; the others are sent', async () => {
      const list = await xml(
        'newCL',
        '<cl><name>customers</name><destinations>' +
          [...SENT, BLOCKED].map((p) => `<destination><phone>0${p.slice(3)}</phone></destination>`).join('') +
          '</destinations></cl>',
      );
      assert.equal(xmlStatus(list), 0, list);
      const accepted = await xml(
        'sms',
        `<source>Yona</source><destinations><cl_id>${xmlField(list, 'id')}</cl_id></destinations>` +
          '<message>Spring sale</message><timing>02/03/27 10:00</timing>',
      );
      assert.equal(xmlStatus(accepted), 0, accepted);
      assert.deepEqual(
        ['recipients', 'credits', 'timing'].map((f) => xmlField(accepted, f)),
        ['3', '3', '02/03/27 10:00'],
      );
      assert.equal(await balance(), '97');

      now = at(9, 30);
      const blocked = await xml('addNumBL', `<phones><phone>0${BLOCKED.slice(3)}</phone></phones>`);
      assert.deepEqual([xmlStatus(blocked), xmlField(blocked, 'added')], [946, '1']);
      assert.deepEqual(await reports(), [], 'nothing released before its time');

      now = at(10);
      // Everything is timed by the service's (injected) clock: the skip at release and the receipts alike.
      const reported = await eventually(
        async () => {
          const r = await reports();
          return r.length === 3 && r.every(([, status]) => status !== '-1') ? r : undefined;
        },
        10_000,
        'the receipts of the contacts sent to',
      );
      assert.deepEqual(reported, [...SENT.map((p) => [p, '102']), [BLOCKED, '201']]);
      assert.equal(await balance(), '98', "the blocked contact's credit refunded");
      assert.deepEqual(
        h.simulator
          .messages()
          .map((m) => [m.destination, m.text])
          .sort(),
        SENT.map((p) => [p, 'Spring sale']),
      );
    });
  });
}
