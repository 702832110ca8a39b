// A carrier slower than the dispatcher's lease: each claimed batch takes several leases to submit. The
// dispatcher renews the lease of what it still holds, so no other lane claims a message that is being sent:
// every destination gets its message exactly once, with no crash or disconnect to excuse a duplicate.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { storeTargets } from '../helpers/stores.ts';
import { eventually, mobiles, newSender, startDelivery, stateCounts, type DeliveryHarness, type Sender } from '../workers/delivery-helpers.ts';

const RECIPIENTS = 90;
const RATE = 60; // submits per second: one batch of 30 takes 500 ms, five leases of 100 ms

const targets = await storeTargets();
for (const target of targets) {
  describe(`a carrier slower than the lease (${target.name})`, () => {
    let h: DeliveryHarness;
    let s: Sender;

    before(async () => {
      h = await startDelivery(target, {
        sim: { receiptDelayMs: 5 },
        carrier: { windowSize: 10, binds: 1, maxSubmitsPerSecond: RATE },
        settings: { batchSize: 30, lanes: 2, leaseMs: 100 },
      });
      s = await newSender(h.t, 'slowcarrier', RECIPIENTS);
    });
    after(() => h.close());

    it('sends every message once: the lease of a batch still submitting is renewed', async () => {
      const phones = mobiles(RECIPIENTS, 550_000_000);
      const reply = await s.sms({ destinations: { phone: phones }, message: 'slow but once' });
      assert.equal(reply.status, 0);
      await eventually(async () => ((await stateCounts(h.t, reply.campaign_id)).done === RECIPIENTS ? true : undefined),
        15_000, 'every message submitted and receipted');
      const copies = new Map<string, number>();
      for (const m of h.simulator.messages()) copies.set(m.destination, (copies.get(m.destination) ?? 0) + 1);
      assert.equal(copies.size, RECIPIENTS, 'every destination got the message');
      assert.deepEqual([...copies].filter(([, n]) => n > 1), [], 'no destination got it twice');
    });
  });
}
