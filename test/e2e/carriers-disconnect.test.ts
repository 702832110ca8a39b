// The simulator drops every connection twice in the middle of a 3000-recipient campaign: the connector
// reconnects, submits caught in flight are retried, and every message ends submitted. Two independent
// accounts are compared: the simulator's log of what it received, and the service's store (every message
// submitted with a carrier message id the simulator issued for that destination, then receipted).
// Duplicates (the SMSC took a submit whose answer was lost) are bounded by what the windows held at each
// drop: WINDOW x drops in all, and at most one extra copy of a message per drop.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ReceivedMessage } from '../../src/carriers/simulator/index.ts';
import { storeTargets } from '../helpers/stores.ts';
import {
  eventually,
  mobiles,
  newSender,
  startDelivery,
  stateCounts,
  type DeliveryHarness,
  type Sender,
} from '../delivery/delivery-helpers.ts';

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
      const expected = new Set(phones.map((p) => `972${p.slice(1)}`));
      const reply = await s.sms({ destinations: { phone: phones }, message: 'survives a disconnect' });
      assert.equal(reply.status, 0);
      let drops = 0;
      for (const at of [600, 1800]) {
        await eventually(() => h.simulator.stats().messagesReceived >= at, 15_000, `${at} messages received`);
        h.simulator.disconnectAll();
        drops++;
      }

      // The service's account: nothing left queued or in flight, each message with the carrier id it was given.
      await eventually(
        async () => {
          const counts = await stateCounts(h.t, reply.campaign_id);
          return (counts.submitted ?? 0) + (counts.done ?? 0) === RECIPIENTS ? true : undefined;
        },
        25_000,
        'every message submitted',
      );
      const db = h.t.service.store.db;
      const recorded = await db
        .selectFrom('messages as m')
        .leftJoin('carrier_message_ids as c', 'c.message_id', 'm.id')
        .select(['m.id', 'm.phone', 'm.carrier', 'c.carrier_message_id'])
        .where('m.campaign_id', '=', reply.campaign_id)
        .execute();

      // The simulator's account, per destination.
      const received = h.simulator.messages();
      const byDestination = new Map<string, ReceivedMessage[]>();
      for (const m of received) byDestination.set(m.destination, [...(byDestination.get(m.destination) ?? []), m]);
      assert.deepEqual(
        [...expected].filter((p) => !byDestination.has(p)),
        [],
        'every destination of the campaign reached the simulator',
      );
      assert.deepEqual(
        [...byDestination.keys()].filter((p) => !expected.has(p)),
        [],
        'and nothing else did',
      );

      // One carrier id per message (one part each), and it is one the simulator issued to that destination.
      assert.equal(recorded.length, RECIPIENTS, 'one carrier message id recorded per message');
      assert.deepEqual(new Set(recorded.map((r) => r.phone)), expected);
      const unmatched = recorded.filter(
        (r) =>
          r.carrier !== 'sim' ||
          !r.carrier_message_id ||
          !byDestination.get(r.phone)?.some((m) => m.messageIds.includes(r.carrier_message_id!)),
      );
      assert.deepEqual(
        unmatched.slice(0, 5),
        [],
        `${unmatched.length} messages recorded without an id the simulator gave their destination`,
      );

      const duplicates = received.length - RECIPIENTS;
      const copies = [...byDestination.values()].map((ms) => ms.length);
      const resent = copies.filter((n) => n > 1).length;
      t.diagnostic(
        `disconnects: ${drops}, messages received: ${received.length}, duplicates: ${duplicates} over ${resent} destinations, ` +
          `most copies of one message: ${Math.max(...copies)}, reconnect binds: ${h.simulator.stats().binds}`,
      );
      assert.ok(duplicates <= WINDOW * drops, `duplicates ${duplicates} exceed ${WINDOW} per drop`);
      assert.ok(
        Math.max(...copies) <= 1 + drops,
        `a message went out ${Math.max(...copies)} times: more than once plus one per drop`,
      );
      assert.ok(h.simulator.stats().binds >= 1 + drops, 'the connector bound again after each drop');

      await eventually(
        async () => ((await stateCounts(h.t, reply.campaign_id)).done === RECIPIENTS ? true : undefined),
        15_000,
        'every receipt stored',
      );
      const statuses = await db
        .selectFrom('messages')
        .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
        .where('campaign_id', '=', reply.campaign_id)
        .groupBy('status')
        .execute();
      assert.deepEqual(
        statuses.map((r) => [r.status, Number(r.n)]),
        [[102, RECIPIENTS]],
      );
      const campaign = await db
        .selectFrom('campaigns')
        .select('state')
        .where('id', '=', reply.campaign_id)
        .executeTakeFirstOrThrow();
      assert.equal(campaign.state, 'sent');
    });
  });
}
