// Idempotent sends over HTTP on every store: an `Idempotency-Key` header (or the `idempotency_key` field in XML)
// makes sms, bulk, send_otp and updateAmountSub safe to retry: a retry, or twenty at once, gets the first reply and
// the handset receives the text once, charged once; the same key with another body is refused (2); another account
// has keys of its own; a day later the key runs anew, and retention sweeps it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { retentionComponent } from '../../src/delivery/retention.ts';
import { storeTargets } from '../helpers/stores.ts';
import {
  eventually,
  newSender,
  startDelivery,
  type DeliveryHarness,
  type Sender,
} from '../delivery/delivery-helpers.ts';
import { newResellerWithSubSender, xmlField, xmlStatus } from '../operations/send-helpers.ts';
import { whenQuiet } from '../helpers/quiescence.ts';

const targets = await storeTargets();
const DAY_MS = 86_400_000;

for (const target of targets) {
  describe(`idempotency keys (${target.name})`, () => {
    let h: DeliveryHarness;
    let s: Sender;
    let now = Date.now();
    const keyed = (key: string) => ({ headers: { 'Idempotency-Key': key } });
    const keys = () => h.t.service.store.db.selectFrom('idempotency_keys').selectAll().execute();
    const campaigns = async (username: string) =>
      (
        await h.t.service.store.db
          .selectFrom('campaigns as c')
          .innerJoin('accounts as a', 'a.id', 'c.account_id')
          .select('c.id')
          .where('a.username', '=', username)
          .execute()
      ).length;

    before(async () => {
      h = await startDelivery(target, {
        clock: () => now,
        components: [retentionComponent({ intervalMs: 200 })],
        env: { YONA_OTP_RESEND_SECONDS: '0' },
      });
      s = await newSender(h.t, 'retrier', 100);
    });
    after(() => h.close());

    it('a retried sms reaches the handset once, charged once, with the first reply', async () => {
      const doc = { destinations: { phone: '0521110001' }, message: 'once only' };
      const first = await s.sms(doc, keyed('order-1'));
      assert.equal(first.status, 0, first.message);
      const retry = await s.sms(doc, keyed('order-1'));
      assert.deepEqual(retry, first);
      await eventually(() => h.simulator.messages({ to: '972521110001' }).length === 1, 8000, 'the text');
      assert.equal(
        await whenQuiet(() => h.simulator.messages({ to: '972521110001' }).length, 'texts to the handset'),
        1,
      );
      assert.equal((await s.balance()).credits, 99);
    });

    it('twenty at once with one key: one campaign, every reply the same', async () => {
      const before = await campaigns('retrier');
      const doc = { destinations: { phone: '0521110002' }, message: 'burst' };
      const replies = await Promise.all(Array.from({ length: 20 }, () => s.sms(doc, keyed('burst-1'))));
      assert.equal(replies[0].status, 0, replies[0].message);
      for (const r of replies) assert.deepEqual(r, replies[0]);
      assert.equal(await campaigns('retrier'), before + 1);
    });

    it('refuses the key with a different body (2), and keeps keys apart per account', async () => {
      const other = await s.sms({ destinations: { phone: '0521110003' }, message: 'other text' }, keyed('order-1'));
      assert.equal(other.status, 2);
      assert.equal(
        other.message,
        'Idempotency-Key "order-1" was used for a different request in the last 24 hours: use a new key for a new request',
      );
      const s2 = await newSender(h.t, 'neighbour', 10);
      const own = await s2.sms({ destinations: { phone: '0521110001' }, message: 'once only' }, keyed('order-1'));
      assert.equal(own.status, 0);
      assert.notEqual(own.campaign_id, undefined);
      assert.equal(await campaigns('neighbour'), 1);
    });

    it('takes the key as an XML field, and refuses a malformed key', async () => {
      const xml = `<sms><user><username>retrier</username></user><source>Yona</source><message>xml</message>
        <destinations><phone>0521110004</phone></destinations><idempotency_key>xml-1</idempotency_key></sms>`;
      const a = await h.t.post(xml, { contentType: 'application/xml', token: s.token });
      const b = await h.t.post(xml, { contentType: 'application/xml', token: s.token });
      assert.equal(xmlStatus(a.text), 0, a.text);
      assert.equal(xmlField(b.text, 'campaign_id'), xmlField(a.text, 'campaign_id'));
      const bad = await s.sms({ destinations: { phone: '0521110004' } }, keyed('has space'));
      assert.equal(bad.status, 2);
      assert.match(bad.message, /Idempotency-Key: 1 to 255 printable ASCII characters/);
    });

    it('send_otp, bulk and updateAmountSub run once per key', async () => {
      const otp = { phone: '0521110005', source: 'Yona' };
      const o1 = await s.call('send_otp', otp, keyed('otp-1'));
      const o2 = await s.call('send_otp', otp, keyed('otp-1'));
      assert.equal(o1.status, 0, o1.message);
      assert.deepEqual(o2, o1);
      await eventually(() => h.simulator.messages({ to: '972521110005' }).length === 1, 8000, 'the code');
      const bulk = { messages: { sms: [{ source: 'Yona', message: 'b', destinations: { phone: '0521110006' } }] } };
      const b1 = await s.call('bulk', bulk, keyed('bulk-1'));
      assert.deepEqual(await s.call('bulk', bulk, keyed('bulk-1')), b1);
      const resellerToken = await newResellerWithSubSender(h.t, 'mover', 'moved');
      await h.t.admin('add-credits', 'mover', '50');
      const move = (key: string) =>
        h.t.api(
          'updateAmountSub',
          { user: { username: 'mover' }, userDetails: { username: 'moved' }, amount: '7' },
          { token: resellerToken, ...keyed(key) },
        );
      const m = await Promise.all([move('move-1'), move('move-1'), move('move-1')]);
      assert.equal(m[0].status, 0, m[0].message);
      const sub = await h.t.service.store.db
        .selectFrom('accounts')
        .select('credits')
        .where('username', '=', 'moved')
        .executeTakeFirstOrThrow();
      assert.equal(Number(sub.credits), 7);
    });

    it('runs a key anew after 24 hours, and retention sweeps keys older than that', async () => {
      const doc = { destinations: { phone: '0521110007' }, message: 'daily' };
      const first = await s.sms(doc, keyed('daily'));
      now += DAY_MS + 1000;
      const next = await s.sms(doc, keyed('daily'));
      assert.equal(next.status, 0);
      assert.notEqual(next.campaign_id, first.campaign_id);
      now += DAY_MS + 1000;
      await eventually(async () => (await keys()).length === 0, 8000, 'keys swept');
    });
  });
}
