// End to end on every store: HTTP sms -> dispatcher -> SMPP submit to the simulator -> receipt -> dlr poll,
// for each simulator outcome; long Hebrew as concatenated UCS-2 parts; inbound through `yona sim mo` into
// `incoming`; reply-to-remove; the polling operations' limits and tenant scoping.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runSim } from '../../src/cli/sim.ts';
import { storeTargets } from '../helpers/stores.ts';
import {
  dlrById,
  eventually,
  newSender,
  startDelivery,
  stateCounts,
  windowAroundNow,
  type DeliveryHarness,
  type Sender,
} from '../delivery/delivery-helpers.ts';

const OUTCOMES: Record<string, number> = {
  '0521110015': 15,
  '0521110101': 101,
  '0521110103': 103,
  '0521110108': 108,
  '0521110747': 747,
  '0521111234': 102,
};
/** The receipt window of this suite: long enough that a read right after submission is well inside it on a loaded machine. */
const RECEIPT_WINDOW_MS = 4000;
const HEBREW =
  'שלום רב! זוהי הודעה ארוכה בעברית שנשלחת מקצה לקצה דרך השירות והסימולטור, כדי לוודא פיצול לחלקי UCS-2 והרכבה מחדש. ';

const targets = await storeTargets();
for (const target of targets) {
  describe(`carriers end to end (${target.name})`, () => {
    let h: DeliveryHarness;
    let s: Sender;
    let control: string;
    const sim = async (...args: string[]) => {
      const lines: string[] = [];
      await runSim([...args, '--control', control], (l) => lines.push(l));
      return lines;
    };

    before(async () => {
      h = await startDelivery(target, {
        sim: { controlPort: 0 },
        settings: { receiptWindowMs: RECEIPT_WINDOW_MS, sweepMs: 100 },
      });
      control = `http://127.0.0.1:${h.simulator.controlPort()}`;
      s = await newSender(h.t, 'deliver1', 10_000);
    });
    after(() => h.close());

    it('every simulator outcome reaches dlr with its mapped status; no receipt becomes 2 after the window', async () => {
      const phones = [...Object.keys(OUTCOMES), '0521110002'];
      const reply = await s.sms({
        destinations: { phone: phones.map((p) => ({ $: { id: `o-${p}` }, _: p })) },
        message: 'outcomes',
      });
      assert.equal(reply.status, 0);
      const ids = phones.map((p) => `o-${p}`);
      const silentRow = () =>
        h.t.service.store.db
          .selectFrom('messages')
          .select(['status', 'status_at', 'submitted_at'])
          .where('campaign_id', '=', reply.campaign_id)
          .where('external_id', '=', 'o-0521110002')
          .executeTakeFirstOrThrow();
      // 0002 gets no receipt: read right after its submission (dlr lists a message once it has a status), it is
      // -1, and that read happened inside its receipt window.
      let readAt = 0;
      const first = await eventually(
        async () => {
          readAt = Date.now();
          return (await dlrById(s, ['o-0521110002'])).get('o-0521110002');
        },
        8000,
        'the 0002 message submitted',
      );
      assert.equal(first.status, '-1', 'submitted, no receipt yet');
      const { submitted_at: submittedAt } = await silentRow();
      assert.ok(
        readAt < Number(submittedAt) + RECEIPT_WINDOW_MS,
        `read ${readAt - Number(submittedAt)} ms after submission, inside the ${RECEIPT_WINDOW_MS} ms window`,
      );
      const reports = await eventually(
        async () => {
          const r = await dlrById(s, ids);
          return Object.entries(OUTCOMES).every(([p, st]) => r.get(`o-${p}`)?.status === String(st)) ? r : undefined;
        },
        8000,
        'a receipt for every outcome',
      );
      const delivered = reports.get('o-0521111234')!;
      assert.deepEqual(
        [
          delivered.he_message,
          delivered.en_message,
          delivered.phone,
          delivered.operator,
          delivered.operaor,
          delivered.shipment_id,
        ],
        ['הגיע ליעד', 'Delivered', '972521111234', 'sim', 'sim', String(reply.campaign_id)],
      );
      assert.match(delivered.date, /^\d{2}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2}$/);
      assert.equal(reports.get('o-0521110015')?.he_message, 'מספר כשר');
      await eventually(
        async () => ((await dlrById(s, ['o-0521110002'])).get('o-0521110002')?.status === '2' ? true : undefined),
        RECEIPT_WINDOW_MS + 8000,
        'status 2',
      );
      // ... and became 2 only when the window had ended, not before.
      const timedOut = await silentRow();
      assert.equal(timedOut.status, 2);
      assert.ok(
        Number(timedOut.status_at) >= Number(submittedAt) + RECEIPT_WINDOW_MS,
        `2 set ${Number(timedOut.status_at) - Number(submittedAt)} ms after submission, not before the ${RECEIPT_WINDOW_MS} ms window ended`,
      );
      assert.deepEqual(await stateCounts(h.t, reply.campaign_id), { done: 7 });
      const campaign = await h.t.service.store.db
        .selectFrom('campaigns')
        .select('state')
        .where('id', '=', reply.campaign_id)
        .executeTakeFirstOrThrow();
      assert.equal(campaign.state, 'sent');
      for (const root of ['dlrByDate', 'dlrbyDate']) {
        const byDate = await s.call(root, windowAroundNow());
        assert.equal(byDate.status, 0);
        const statuses = new Map(
          (byDate.transactions as Array<Record<string, string>>).map((r) => [r.external_id, r.status]),
        );
        for (const [p, st] of Object.entries(OUTCOMES))
          assert.equal(statuses.get(`o-${p}`), String(st), `${root} ${p}`);
      }
    });

    it('a long Hebrew message goes out as concatenated UCS-2 parts and is delivered whole', async () => {
      const text = HEBREW.repeat(3);
      const reply = await s.sms({ destinations: { phone: [{ $: { id: 'heb' }, _: '0521112222' }] }, message: text });
      assert.equal(reply.status, 0);
      assert.equal(reply.encoding, 'ucs2');
      const [received] = await eventually(
        () => {
          const m = h.simulator.messages({ to: '972521112222' });
          return m.length ? m : undefined;
        },
        5000,
        'the message',
      );
      assert.deepEqual([received.text, received.parts, received.dataCoding], [text, reply.parts, 8]);
      assert.ok(received.parts > 1);
      const listed = JSON.parse((await sim('messages', '--to', '0521112222', '--json'))[0]) as Array<{
        text: string;
        parts: number;
      }>;
      assert.deepEqual(
        listed.map((m) => [m.text, m.parts]),
        [[text, received.parts]],
      );
      await eventually(
        async () => ((await dlrById(s, ['heb'])).get('heb')?.status === '102' ? true : undefined),
        5000,
        'delivered',
      );
      const ids = await h.t.service.store.db
        .selectFrom('carrier_message_ids')
        .select(['part_index', 'part_status'])
        .where('carrier_message_id', 'in', received.messageIds)
        .orderBy('part_index')
        .execute();
      assert.deepEqual(
        ids.map((r) => [r.part_index, r.part_status]),
        received.messageIds.map((_, i) => [i, 102]),
      );
    });

    it('inbound SMS through `yona sim mo` shows in incoming; an unknown number is kept unrouted', async () => {
      await h.t.admin('add-number', 'deliver1', '0559990000');
      const out = await sim('mo', '--from', '0527770001', '--to', '972559990000', '--text', 'שלום, מה נשמע?');
      assert.match(out[0], /delivered to Yona \(1 part\)/);
      await sim('mo', '--from', '0527770002', '--to', '0559990000', '--text', 'x'.repeat(200));
      const reply = await eventually(
        async () => {
          const r = await s.call('incoming', windowAroundNow());
          return r.transactions.length === 2 ? r : undefined;
        },
        5000,
        'two incoming messages',
      );
      assert.deepEqual(
        [reply.status, reply.message],
        [0, '2 incoming messages'],
        'a reply message is never empty (<message/> escapes regex clients)',
      );
      assert.deepEqual(
        reply.transactions.map((m: Record<string, string>) => [m.phone, m.dest, m.message]),
        [
          ['972527770001', '972559990000', 'שלום, מה נשמע?'],
          ['972527770002', '972559990000', 'x'.repeat(200)],
        ],
      );
      assert.match(reply.transactions[0].date, /^\d{2}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2}$/);
      await sim('mo', '--from', '0527770003', '--to', '0551234000', '--text', 'nobody owns this');
      const unrouted = await eventually(() =>
        h.t.service.store.db
          .selectFrom('unrouted_inbound')
          .selectAll()
          .execute()
          .then((r) => (r.length ? r : undefined)),
      );
      assert.deepEqual(
        unrouted.map((r) => [r.phone, r.text]),
        [['972527770003', 'nobody owns this']],
      );
    });

    it('a removal keyword blocks the sender only after a reply-to-remove campaign to them', async () => {
      await s.sms({
        destinations: { phone: ['0528880001', '0528880003'] },
        message: 'sale today',
        add_unsubscribe: '2',
      });
      await s.sms({ destinations: { phone: ['0528880002'] }, message: 'plain news' });
      await eventually(async () =>
        h.simulator.messages().filter((m) => m.destination.startsWith('97252888000')).length === 3 ? true : undefined,
      );
      await sim('mo', '--from', '0528880001', '--to', '0559990000', '--text', '  Stop ');
      await sim('mo', '--from', '0528880002', '--to', '0559990000', '--text', 'הסר');
      await sim('mo', '--from', '0528880003', '--to', '0559990000', '--text', 'thanks, but stop by later');
      await eventually(async () =>
        (await s.call('incoming', windowAroundNow())).transactions.length >= 5 ? true : undefined,
      );
      const listed = await s.call('blacklist', windowAroundNow());
      assert.equal(listed.status, 0);
      assert.equal(listed.transactions.length, 1);
      const rows = await h.t.service.store.db.selectFrom('blocklist').select(['phone', 'source']).execute();
      assert.deepEqual(
        rows.map((r) => [r.phone, r.source]),
        [['972528880001', 'reply-stop']],
      );
    });

    it('dlr, dlrByDate and incoming check their fields and limits (status 2) and never show another account', async () => {
      const w = windowAroundNow();
      assert.equal((await s.call('dlr', { transactions: { external_id: 'x' }, to: w.to })).status, 2);
      assert.equal((await s.call('dlr', { from: w.from, to: w.to })).status, 2);
      const tooMany = await s.call('dlr', {
        transactions: { external_id: Array.from({ length: 1001 }, (_, i) => `id${i}`) },
        ...w,
      });
      assert.equal(tooMany.status, 2);
      assert.match(tooMany.message, /at most 1000/);
      const week = await s.call('dlrByDate', { from: '01/06/26 10:00', to: '08/06/26 10:01' });
      assert.deepEqual([week.status, /one week/.test(week.message)], [2, true]);
      assert.equal((await s.call('dlrByDate', { from: '01/06/26 10:00', to: '08/06/26 10:00' })).status, 0);
      assert.equal((await s.call('incoming', { from: '31/02/26 10:00', to: '01/03/26 10:00' })).status, 2);
      assert.equal((await s.call('incoming', { from: '02/03/26 10:00', to: '01/03/26 10:00' })).status, 2);
      const other = await newSender(h.t, 'deliver2', 100);
      assert.deepEqual((await dlrById(other, ['o-0521111234', 'heb'])).size, 0);
      assert.deepEqual((await other.call('dlrByDate', w)).transactions, []);
      assert.deepEqual((await other.call('incoming', w)).transactions, []);
      const xml = await h.t.post(
        `<dlr><user><username>deliver1</username></user><transactions><external_id>heb</external_id></transactions><from>${w.from}</from><to>${w.to}</to></dlr>`,
        { contentType: 'application/xml', token: s.token },
      );
      assert.match(
        xml.text,
        /<transactions><transaction><external_id>heb<\/external_id><status>102<\/status>.*<operaor>sim<\/operaor>.*<\/transaction><\/transactions>/,
      );
    });
  });
}
