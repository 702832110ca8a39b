// The simulator drops every connection twice in the middle of a 3000-recipient campaign: the connector
// reconnects, submits caught in flight are retried, and every message ends submitted. Duplicates (the SMSC
// took a submit whose answer was lost) are counted and bounded by what the windows held at each drop.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { storeTargets } from '../helpers/stores.ts';
import { eventually, mobiles, newSender, startDelivery, stateCounts, type DeliveryHarness, type Sender } from '../workers/delivery-helpers.ts';

const RECIPIENTS = 3000;
const WINDOW = 50;

const targets = await storeTargets();
for (const target of targets) {
  describe(`carrier disconnects mid-campaign (${target.name})`, () => {
    let h: DeliveryHarness;
    let s: Sender;

    before(async () => {
      h = await startDelivery(target, {
        sim: { receiptDelayMs: 5 },
        carrier: { windowSize: WINDOW, binds: 1, maxSubmitsPerSecond: 3000 },
        settings: { batchSize: 200, retryBaseMs: 200 },
      });
      s = await newSender(h.t, 'disconnect1', RECIPIENTS + 100);
      // Answers come 5 ms late, so the window is full of logged-but-unanswered submits when the line drops.
      h.simulator.setSubmitResponseDelay(5);
    });
    after(() => h.close());

    it('ends with every message submitted and receipted, duplicates bounded by the window', async (t) => {
      const phones = mobiles(RECIPIENTS, 530_000_000);
      const reply = await s.sms({ destinations: { phone: phones }, message: 'survives a disconnect' });
      assert.equal(reply.status, 0);
      let drops = 0;
      for (const at of [600, 1800]) {
        await eventually(() => h.simulator.stats().messagesReceived >= at, 15_000, `${at} messages received`);
        h.simulator.disconnectAll();
        drops++;
      }
      await eventually(() => new Set(h.simulator.messages().map((m) => m.destination)).size === RECIPIENTS, 25_000, 'every recipient reached');
      await eventually(async () => ((await stateCounts(h.t, reply.campaign_id)).done === RECIPIENTS ? true : undefined), 15_000, 'every receipt stored');
      const received = h.simulator.messages();
      const duplicates = received.length - RECIPIENTS;
      t.diagnostic(`disconnects: ${drops}, messages received: ${received.length}, duplicates: ${duplicates}, reconnect binds: ${h.simulator.stats().binds}`);
      assert.equal(h.simulator.stats().duplicates, duplicates);
      assert.ok(duplicates <= WINDOW * drops, `duplicates ${duplicates} exceed ${WINDOW} per drop`);
      assert.ok(h.simulator.stats().binds >= 1 + drops, 'the connector bound again after each drop');
      const statuses = await h.t.service.store.db.selectFrom('messages').select(['status', (eb) => eb.fn.countAll<number>().as('n')])
        .where('campaign_id', '=', reply.campaign_id).groupBy('status').execute();
      assert.deepEqual(statuses.map((r) => [r.status, Number(r.n)]), [[102, RECIPIENTS]]);
      const campaign = await h.t.service.store.db.selectFrom('campaigns').select('state').where('id', '=', reply.campaign_id).executeTakeFirstOrThrow();
      assert.equal(campaign.state, 'sent');
    });
  });
}
