// The configured submit rate and SMSC throttling through HTTP and the dispatcher, on every store: a campaign to a
// carrier with maxSubmitsPerSecond reaches the simulator no faster than that rate allows (its receive times, with
// the token bucket's burst as slack), also across two binds; and with the simulator answering ESME_RTHROTTLED for
// a while in the middle, every message still ends delivered (102 in dlr), each sent exactly once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ReceivedMessage } from '../../src/carriers/simulator/index.ts';
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

const RATE = 200;
const BURST = Math.ceil(RATE / 20); // the bucket holds 50 ms of submits
// Times are taken where the simulator reads each submit: a pause of its event loop (a busy machine) bunches up to
// 50 ms of submits under one reading, so a one-second window may count that many more than were sent in it.
const MOST_IN_ONE_SECOND = RATE + BURST + Math.ceil(RATE / 20);
const RECIPIENTS = 300;

/** The most messages received within any `windowMs`, and the time from the first to the last. */
function pace(received: ReceivedMessage[], windowMs = 1000): { most: number; spanMs: number } {
  const times = received.map((m) => m.receivedAt).sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; j < times.length; j++) {
    while (times[j] - times[i] >= windowMs) i++;
    most = Math.max(most, j - i + 1);
  }
  return { most, spanMs: times.at(-1)! - times[0] };
}

const targets = await storeTargets();
for (const target of targets) {
  describe(`submit rate and throttling through the dispatcher (${target.name})`, () => {
    let h: DeliveryHarness;
    let s: Sender;
    const campaign = async (phones: string[]) => {
      const reply = await s.sms({
        destinations: { phone: phones.map((p) => ({ $: { id: p }, _: p })) },
        message: 'paced',
      });
      assert.equal(reply.status, 0, JSON.stringify(reply));
      return reply.campaign_id as number;
    };
    const ofCampaign = (phones: string[]) => {
      const wanted = new Set(phones.map((p) => `972${p.slice(1)}`));
      return h.simulator.messages().filter((m) => wanted.has(m.destination));
    };

    before(async () => {
      h = await startDelivery(target, {
        carrier: { binds: 2, windowSize: 20, maxSubmitsPerSecond: RATE },
        settings: { batchSize: 100, retryBaseMs: 100, retryMaxMs: 400 },
      });
      s = await newSender(h.t, 'paced1', 10_000);
    });
    after(() => h.close());

    it(`a campaign reaches the simulator no faster than maxSubmitsPerSecond (${RATE}/s over two binds)`, async (t) => {
      const phones = mobiles(RECIPIENTS, 547_000_000);
      const id = await campaign(phones);
      await eventually(
        async () => ((await stateCounts(h.t, id)).done === RECIPIENTS ? true : undefined),
        15_000,
        'every message receipted',
      );
      const received = ofCampaign(phones);
      assert.equal(received.length, RECIPIENTS);
      const { most, spanMs } = pace(received);
      t.diagnostic(
        `${RECIPIENTS} submits over ${spanMs} ms (${Math.round((RECIPIENTS - 1) / (spanMs / 1000))}/s); most in one second: ${most}`,
      );
      const fastest = ((RECIPIENTS - BURST) / RATE) * 1000;
      assert.ok(
        spanMs >= fastest - 50,
        `${RECIPIENTS} submits took ${spanMs} ms; at ${RATE}/s with a burst of ${BURST} they need ${fastest} ms`,
      );
      assert.ok(most <= MOST_IN_ONE_SECOND, `${most} submits within one second (rate ${RATE}, burst ${BURST})`);
      assert.equal(h.simulator.stats().binds, 2, "the rate is the carrier's across both binds");
    });

    it('with the simulator throttling for a while mid-campaign, every message is delivered (102) exactly once', async (t) => {
      const phones = mobiles(RECIPIENTS, 548_000_000);
      const before = h.simulator.stats();
      await campaign(phones);
      await eventually(() => ofCampaign(phones).length >= 80, 10_000, 'the campaign under way');
      h.simulator.throttle(true);
      try {
        await eventually(() => h.simulator.stats().throttled - before.throttled >= 10, 5000, 'submits throttled');
        await new Promise((r) => setTimeout(r, 700));
      } finally {
        h.simulator.throttle(false);
      }
      const reports = await eventually(
        async () => {
          const r = await dlrById(s, phones);
          return phones.every((p) => r.get(p)?.status === '102') ? r : undefined;
        },
        20_000,
        'every message delivered',
      );
      assert.equal(reports.size, RECIPIENTS);
      const received = ofCampaign(phones);
      const copies = new Map<string, number>();
      for (const m of received) copies.set(m.destination, (copies.get(m.destination) ?? 0) + 1);
      assert.equal(copies.size, RECIPIENTS, 'every recipient reached');
      assert.deepEqual([...copies].filter(([, n]) => n > 1).slice(0, 5), [], 'none twice');
      const { most } = pace(received);
      const throttled = h.simulator.stats().throttled - before.throttled;
      t.diagnostic(`throttled answers: ${throttled}; most submits in one second: ${most}`);
      assert.ok(
        most <= MOST_IN_ONE_SECOND,
        `the rate stayed within ${RATE}/s after throttling (${most} in one second)`,
      );
    });
  });
}
