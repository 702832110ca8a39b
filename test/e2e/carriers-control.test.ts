// The simulator's HTTP control channel against a real `yona smsc-sim` process, with a service bound to it over
// SMPP on every store: /throttle (ESME_RTHROTTLED pauses and slows the carrier; everything is delivered once it is
// off), /fail-next (transient failures are retried, a permanent one fails the message with 1 or 18 and refunds
// it), /disconnect (the connector binds again, nothing is lost), /receipt-delay, GET /stats and /messages.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SmppCarrier } from '../../src/carriers/smpp/connector.ts';
import { carriersComponent, type CarriersRuntime } from '../../src/delivery/carriers.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { startSmscSimProcess, type SmscSimProcess } from '../helpers/smsc-sim-process.ts';
import { storeTargets } from '../helpers/stores.ts';
import { loadConfig } from '../../src/config.ts';
import {
  dlrById,
  eventually,
  mobiles,
  newSender,
  settleOnClose,
  simCarrier,
  type Sender,
} from '../delivery/delivery-helpers.ts';

const RATE = 800;
const WINDOW = 20;

// One simulator process for every store; each store's run uses its own destinations and reads counter deltas.
let sim: SmscSimProcess;
before(async () => (sim = await startSmscSimProcess(['--receipt-delay', '20'])));
after(async () => assert.equal(await sim?.stop(), 0, 'the simulator stops cleanly on SIGTERM'));

const targets = await storeTargets();
for (const [index, target] of targets.entries()) {
  describe(`simulator control channel, real smsc-sim process (${target.name})`, () => {
    const base = 541_000_000 + index * 100_000;
    let t: TestService;
    let s: Sender;
    let runtime: () => CarriersRuntime | undefined;

    /** Sends one sms to `phones` (external id = phone); resolves with the reply. */
    const send = async (phones: string[]) => {
      const reply = await s.sms({
        destinations: { phone: phones.map((p) => ({ $: { id: p }, _: p })) },
        message: 'control channel',
      });
      assert.equal(reply.status, 0, JSON.stringify(reply));
      return reply;
    };
    /** Waits until every phone's dlr status is `status`. */
    const settled = (phones: string[], status: string, timeoutMs = 10_000) =>
      eventually(
        async () => {
          const reports = await dlrById(s, phones);
          return phones.every((p) => reports.get(p)?.status === status) ? reports : undefined;
        },
        timeoutMs,
        `${phones.length} messages with status ${status}`,
      );
    /** Copies of each phone's message the simulator received (GET /messages). */
    const copies = async (phones: string[]) => {
      const wanted = new Set(phones.map((p) => `972${p.slice(1)}`));
      const counts = new Map<string, number>();
      for (const m of await sim.messages())
        if (wanted.has(m.destination)) counts.set(m.destination, (counts.get(m.destination) ?? 0) + 1);
      return counts;
    };

    before(async () => {
      const component = carriersComponent({
        setup: {
          carriers: [simCarrier(sim.smppPort, { binds: 1, windowSize: WINDOW, maxSubmitsPerSecond: RATE })],
          routes: [],
        },
        settings: { pollMs: 20, retryBaseMs: 50, retryMaxMs: 200 },
        config: loadConfig({}),
      });
      runtime = component.runtime;
      t = await startTestService(target, { components: [component] });
      settleOnClose(t);
      s = await newSender(t, 'control1', 10_000);
    });
    after(() => t?.close());

    it('/throttle on: the carrier gets ESME_RTHROTTLED, pauses and halves its rate; off: every message is delivered once', async () => {
      const phones = mobiles(40, base);
      const before = await sim.stats();
      await sim.post('/throttle', { on: true });
      try {
        await send(phones);
        await eventually(async () => (await sim.stats()).throttled - before.throttled >= 5, 8000, 'throttled submits');
        const carrier = runtime()!.carriers.get('sim') as SmppCarrier;
        assert.ok(carrier.stats().rate <= RATE / 2, `the connector halved its rate (now ${carrier.stats().rate}/s)`);
        assert.equal(
          (await sim.stats()).messagesReceived,
          before.messagesReceived,
          'nothing accepted while throttling',
        );
      } finally {
        await sim.post('/throttle', { on: false });
      }
      await settled(phones, '102');
      const counts = await copies(phones);
      assert.equal(counts.size, phones.length, 'every message reached the simulator');
      assert.deepEqual(
        [...counts.values()].filter((n) => n !== 1),
        [],
        'each exactly once',
      );
    });

    it('/fail-next with a transient status: those submits fail and are retried until delivered', async () => {
      const phones = mobiles(6, base + 10_000);
      const before = await sim.stats();
      await sim.post('/fail-next', { n: 4, status: 0x08 }); // ESME_RSYSERR
      await send(phones);
      await settled(phones, '102');
      const after = await sim.stats();
      assert.equal(after.failedOnPurpose - before.failedOnPurpose, 4, 'four submits answered ESME_RSYSERR');
      assert.equal(
        after.submitsReceived - before.submitsReceived,
        phones.length + 4,
        'each failed one was submitted again',
      );
      assert.deepEqual(
        [...(await copies(phones)).values()],
        phones.map(() => 1),
      );
    });

    it('/fail-next with a permanent status fails the message (1; 18 when malformed), not retried, refunded', async () => {
      for (const [status, phone, expected] of [
        [0x0b, `0${base + 30_009}`, '1'],
        [0x01, `0${base + 30_019}`, '18'],
      ] as const) {
        const before = await sim.stats();
        const credits = (await s.balance()).credits;
        await sim.post('/fail-next', { n: 1, status });
        await send([phone]);
        assert.equal((await s.balance()).credits, credits - 1);
        await settled([phone], expected);
        const after = await sim.stats();
        assert.deepEqual(
          [after.failedOnPurpose - before.failedOnPurpose, after.submitsReceived - before.submitsReceived],
          [1, 1],
          'one submit, no retry',
        );
        assert.deepEqual(await sim.messages(`972${phone.slice(1)}`), []);
        await eventually(async () => (await s.balance()).credits === credits, 5000, 'the refund');
      }
    });

    it('/disconnect mid-campaign: the connector binds again (GET /stats binds) and every message is delivered', async () => {
      const phones = mobiles(300, base + 20_000);
      const before = await sim.stats();
      await send(phones);
      await eventually(
        async () => (await sim.stats()).messagesReceived - before.messagesReceived >= 60,
        8000,
        'the campaign under way',
      );
      await sim.post('/disconnect');
      await settled(phones, '102', 15_000);
      const after = await sim.stats();
      assert.ok(after.binds > before.binds, `bound again after the drop (binds ${before.binds} -> ${after.binds})`);
      const counts = await copies(phones);
      assert.equal(counts.size, phones.length, 'no message lost');
      const extra = [...counts.values()].reduce((a, n) => a + n - 1, 0);
      assert.ok(extra <= WINDOW, `re-sent copies ${extra} bounded by the window (${WINDOW})`);
    });

    it('/receipt-delay holds the receipts: dlr reads -1 until the delay has passed, then 102', async () => {
      await sim.post('/receipt-delay', { ms: 2000 });
      try {
        const phone = `0${base + 40_009}`;
        await send([phone]);
        const [received] = await eventually(
          async () => {
            const m = await sim.messages(`972${phone.slice(1)}`);
            return m.length ? m : undefined;
          },
          5000,
          'the submit',
        );
        await eventually(
          async () => (await dlrById(s, [phone])).get(phone)?.status === '-1',
          5000,
          'the submission recorded',
        );
        assert.ok(Date.now() < received.receivedAt + 2000, 'read inside the delay');
        await settled([phone], '102');
        assert.ok(Date.now() >= received.receivedAt + 2000, 'the receipt came after the delay');
      } finally {
        await sim.post('/receipt-delay', { ms: 20 });
      }
    });
  });
}
