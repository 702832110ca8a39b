// The order of a message's dlr reports end to end on every store: HTTP sms -> SMPP simulator -> receipts and the
// receipt window's sweep -> the pusher -> a real receiver on 127.0.0.1. Each message first gets the window's 2
// (no confirmation yet), then its real receipt's 102, then a late receipt of a lower state (ENROUTE or UNDELIV)
// from the carrier. The receiver must see 2 and then 102 for every message, the 102 only after the 2 was
// answered (a message's next report waits for the previous one, while different messages go out in parallel),
// and nothing after the 102; the message's stored status stays 102.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPusher } from '../../src/delivery/pusher.ts';
import { loadConfig } from '../../src/config.ts';
import { startPushReceiver, waitFor, type PushReceiver, type ReceivedPush } from '../helpers/push-receiver.ts';
import { whenQuiet } from '../helpers/quiescence.ts';
import { storeTargets } from '../helpers/stores.ts';
import {
  dlrById,
  newSender,
  startDelivery,
  windowAroundNow,
  type DeliveryHarness,
} from '../delivery/delivery-helpers.ts';

const ENV = {
  YONA_PUSH_ALLOW_PRIVATE: '1',
  YONA_PUSH_RETRY_BASE_MS: '20',
  YONA_PUSH_POLL_MS: '20',
  YONA_PUSH_CONCURRENCY: '8',
};
const MESSAGES = 24;
const RECEIPT_DELAY_MS = 1200;
const LATE_AFTER_MS = 150;
// The 2 pushes of every fourth message are answered slowly, after the 102s are stored, while the other requests
// keep slots free: a 102 pushed without waiting for its message's 2 would arrive first.
const SLOW_ANSWER_MS = 1500;
const slow = (phone: string) => Number(phone.slice(-5, -1)) % 4 === 0;

const targets = await storeTargets();
for (const target of targets) {
  describe(`the order of a message's dlr reports (${target.name})`, () => {
    let h: DeliveryHarness;
    let receiver: PushReceiver;
    const answeredAt = new Map<ReceivedPush, number>();

    before(async () => {
      receiver = await startPushReceiver(async (push) => {
        if (push.fields.status === '2' && slow(push.fields.phone))
          await new Promise((r) => setTimeout(r, SLOW_ANSWER_MS));
        answeredAt.set(push, Date.now());
        return 200;
      });
      h = await startDelivery(target, {
        sim: {
          receiptDelayMs: RECEIPT_DELAY_MS,
          // Phones ending in 1: a late ENROUTE (intermediate) after DELIVRD; in 2: a late UNDELIV (failed).
          rules: [
            {
              suffix: '1',
              state: 'DELIVRD',
              err: '000',
              late: { state: 'ENROUTE', err: '000', afterMs: LATE_AFTER_MS },
            },
            {
              suffix: '2',
              state: 'DELIVRD',
              err: '000',
              late: { state: 'UNDELIV', err: '000', afterMs: LATE_AFTER_MS },
            },
          ],
        },
        settings: { receiptWindowMs: 200, sweepMs: 40 },
        env: ENV,
        components: [createPusher({ config: loadConfig(ENV) })],
      });
    });
    after(async () => {
      await h?.close();
      await receiver?.close();
    });

    it('pushes 2 then 102 for each message, the 102 after the 2 was answered; a late lower receipt is never pushed or stored', async () => {
      const s = await newSender(h.t, 'ordered', 1000);
      assert.equal((await s.call('push_url', { type: 'dlr', url: receiver.url })).status, 0);
      const phones = Array.from({ length: MESSAGES }, (_, i) => `05271${String(i).padStart(4, '0')}${(i % 2) + 1}`);
      const id = (phone: string) => `order-${phone}`;
      const reply = await s.sms({
        destinations: { phone: phones.map((p) => ({ $: { id: id(p) }, _: p })) },
        message: 'in order',
      });
      assert.equal(reply.status, 0, JSON.stringify(reply));

      // Every message's 102, then the late receipts (sent 150 ms after the real ones) and past the pusher's polls.
      await waitFor(
        () => receiver.received.filter((p) => p.fields.status === '102').length >= MESSAGES,
        'a 102 push per message',
        30_000,
      );
      await waitFor(() => h.simulator.stats().receiptsSent >= 2 * MESSAGES, 'the late receipts sent', 10_000);
      await whenQuiet(() => receiver.received.length, 'dlr pushes', { quietMs: 800 });

      for (const phone of phones) {
        const pushes = receiver.received.filter((p) => p.fields.external_id === id(phone));
        assert.deepEqual(
          pushes.map((p) => p.fields.status),
          ['2', '102'],
          `${phone}: the window's 2, then the receipt's 102, then nothing`,
        );
        const [first, second] = pushes;
        assert.notEqual(first.headers['x-yona-event-id'], second.headers['x-yona-event-id']);
        const firstAnswered = answeredAt.get(first);
        assert.ok(firstAnswered !== undefined, `${phone}: the 2 was answered`);
        assert.ok(
          second.at >= firstAnswered,
          `${phone}: the 102 arrived ${firstAnswered - second.at} ms before the 2 was answered`,
        );
      }
      // Different messages went out in parallel: some 2 arrived while another was still unanswered.
      const twos = receiver.received.filter((p) => p.fields.status === '2');
      assert.ok(
        twos.some((p, i) => i > 0 && p.at < answeredAt.get(twos[i - 1])!),
        'several messages in flight at once',
      );

      const polled = await dlrById(s, phones.map(id), windowAroundNow());
      for (const phone of phones) assert.equal(polled.get(id(phone))?.status, '102', `${phone} stays 102`);
    });
  });
}
