// Slow carriers. One slower than the dispatcher's lease: each claimed batch takes several leases to submit; the
// dispatcher renews the lease of what it still holds, so no other lane claims a message that is being sent:
// every destination gets its message exactly once, with no crash or disconnect to excuse a duplicate. One that
// answers a submit after our response timeout: the message is sent again, and the late copy's carrier id is
// recorded too, so its receipt is applied instead of left unmatched.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { storeTargets } from '../helpers/stores.ts';
import {
  dlrById,
  eventually,
  mobiles,
  newSender,
  startDelivery,
  stateCounts,
  type DeliveryHarness,
  type Sender,
} from '../delivery/delivery-helpers.ts';

const RECIPIENTS = 60;
const RATE = 10; // submits per second: one batch of 30 takes 3 s, three leases of 1 s (renewed every third of one)

const targets = await storeTargets();
for (const target of targets) {
  describe(`a carrier slower than the lease (${target.name})`, () => {
    let h: DeliveryHarness;
    let s: Sender;

    before(async () => {
      h = await startDelivery(target, {
        sim: { receiptDelayMs: 5 },
        carrier: { windowSize: 10, binds: 1, maxSubmitsPerSecond: RATE },
        settings: { batchSize: 30, lanes: 2, leaseMs: 1000 },
      });
      s = await newSender(h.t, 'slowcarrier', RECIPIENTS);
    });
    after(() => h.close());

    it('sends every message once: the lease of a batch still submitting is renewed', async () => {
      const phones = mobiles(RECIPIENTS, 550_000_000);
      const reply = await s.sms({ destinations: { phone: phones }, message: 'slow but once' });
      assert.equal(reply.status, 0);
      await eventually(
        async () => ((await stateCounts(h.t, reply.campaign_id)).done === RECIPIENTS ? true : undefined),
        30_000,
        'every message submitted and receipted',
      );
      const copies = new Map<string, number>();
      for (const m of h.simulator.messages()) copies.set(m.destination, (copies.get(m.destination) ?? 0) + 1);
      assert.equal(copies.size, RECIPIENTS, 'every destination got the message');
      assert.deepEqual(
        [...copies].filter(([, n]) => n > 1),
        [],
        'no destination got it twice',
      );
    });
  });
}

for (const target of targets) {
  describe(`a submit answered after the response timeout (${target.name})`, () => {
    let h: DeliveryHarness;
    let s: Sender;

    before(async () => {
      h = await startDelivery(target, {
        sim: { receiptDelayMs: 5 },
        carrier: { responseTimeoutMs: 300 },
        settings: { retryBaseMs: 50 },
      });
      s = await newSender(h.t, 'lateanswer', 10);
    });
    after(() => h.close());

    it("records the late copy's carrier id, so its receipt is applied, not orphaned", async () => {
      h.simulator.setSubmitResponseDelay(600); // the first answer comes 300 ms after we stop waiting
      const reply = await s.sms({
        destinations: { phone: { $: { id: 'late-1' }, _: '0541112229' } },
        message: 'answered late',
      });
      assert.equal(reply.status, 0);
      await eventually(() => h.simulator.messages().length >= 1, 5000, 'the first copy at the simulator');
      h.simulator.setSubmitResponseDelay(0);
      const db = h.t.service.store.db;
      const ids = async () =>
        (
          await db
            .selectFrom('carrier_message_ids')
            .select('carrier_message_id')
            .where(
              'message_id',
              '=',
              (
                await db
                  .selectFrom('messages')
                  .select('id')
                  .where('campaign_id', '=', reply.campaign_id)
                  .executeTakeFirstOrThrow()
              ).id,
            )
            .execute()
        )
          .map((r) => r.carrier_message_id)
          .sort();
      await eventually(
        async () => ((await ids()).length === 2 ? true : undefined),
        8000,
        "both copies' carrier ids recorded",
      );
      const copies = h.simulator.messages();
      assert.equal(copies.length, 2, 'the timed-out message was sent again');
      assert.deepEqual(await ids(), copies.flatMap((m) => m.messageIds).sort());
      await eventually(
        async () => {
          const pending = await db.selectFrom('pending_receipts').select('id').execute();
          return pending.length === 0 ? true : undefined;
        },
        5000,
        'no receipt left unmatched',
      );
      assert.equal((await dlrById(s, ['late-1'])).get('late-1')?.status, '102');
    });
  });
}
