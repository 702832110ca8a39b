// A change of routes moves the messages a batch already claimed: those still waiting for a slot of their carrier's
// window are routed again under the new routes; only the one inside the window stays with the old carrier. A
// carrier that is throttled with more messages in its line than the backlog limit is passed over for the next.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Carrier, CarrierCondition, OutboundSms, SubmitResult } from '../../src/carriers/types.ts';
import { deliverySettings } from '../../src/config.ts';
import { Dispatcher } from '../../src/delivery/dispatcher.ts';
import { Router } from '../../src/delivery/routing.ts';
import { createLogger } from '../../src/logger.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { eventually, newSender, settleOnClose, type Sender } from './delivery-helpers.ts';

/** A carrier with a window of one whose answers are held until `release()`. */
class HeldCarrier implements Carrier {
  readonly protocol = 'test';
  readonly inFlightLimit = 1;
  readonly received: string[] = [];
  private held = true;
  private readonly waiting: Array<() => void> = [];
  /** Set: the carrier says it is pushing back since then. */
  throttledSince?: number;
  constructor(readonly name: string) {}
  condition(): CarrierCondition {
    return {
      bindsUp: 1,
      bindsHeld: 1,
      bindsWanted: 1,
      windowInUse: this.waiting.length,
      windowSize: this.inFlightLimit,
      graceMs: 5000,
      ...(this.throttledSince === undefined ? {} : { throttledSince: this.throttledSince }),
    };
  }
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
  submit(sms: OutboundSms): Promise<SubmitResult> {
    this.received.push(sms.destination);
    const answer = { ok: true as const, carrierMessageIds: [`${this.name}-${sms.messageId}`] };
    if (!this.held) return Promise.resolve(answer);
    return new Promise((resolve) => this.waiting.push(() => resolve(answer)));
  }
  release(): void {
    this.held = false;
    for (const answer of this.waiting.splice(0)) answer();
  }
  onReceipt(): void {}
  onInbound(): void {}
  onLateAccept(): void {}
  canSubmit(): boolean {
    return true;
  }
}

const targets = await storeTargets();
for (const target of targets) {
  describe(`routes changed while a batch waits for its carrier (${target.name})`, () => {
    let t: TestService;
    let s: Sender;

    before(async () => {
      t = await startTestService(target);
      settleOnClose(t);
      s = await newSender(t, 'reroute1', 100);
    });
    after(() => t.close());

    const dispatcherOver = (a: HeldCarrier, b: HeldCarrier, route: string, throttleBacklog = 200) =>
      new Dispatcher({
        store: t.service.store,
        logger: createLogger('silent'),
        signals: t.service.signals,
        clock: () => Date.now(),
        carriers: new Map<string, Carrier>([
          ['a', a],
          ['b', b],
        ]),
        routers: new Map([['sms', new Router([{ prefix: '', carrier: route }], ['a', 'b'])]]),
        settings: { ...deliverySettings({}), batchSize: 50, throttleBacklog },
      });

    it('sends the claimed messages still waiting to the new route, each once', async () => {
      const a = new HeldCarrier('a');
      const b = new HeldCarrier('b');
      b.release();
      const dispatcher = dispatcherOver(a, b, 'a');
      const phones = ['0521230101', '0521230102', '0521230103', '0521230104', '0521230105'];
      const reply = await s.sms({ destinations: { phone: phones }, message: 'rerouted' });
      assert.equal(reply.status, 0);
      const batch = dispatcher.runBatch();
      await eventually(async () => a.received.length === 1 || undefined, 5000, 'the first message inside a window');
      dispatcher.setRouters(new Map([['sms', new Router([{ prefix: '', carrier: 'b' }], ['a', 'b'])]]));
      a.release();
      assert.equal(await batch, phones.length);
      assert.equal(a.received.length, 1, `only the message already inside a's window went to a: ${a.received}`);
      assert.equal(b.received.length, phones.length - 1, 'the rest went to the new route');
      assert.equal(new Set([...a.received, ...b.received]).size, phones.length, 'each message once');
      const rows = await t.service.store.db
        .selectFrom('messages')
        .select(['phone', 'carrier', 'state'])
        .where('campaign_id', '=', reply.campaign_id)
        .execute();
      for (const row of rows) {
        assert.equal(row.state, 'submitted');
        assert.equal(row.carrier, a.received.includes(row.phone) ? 'a' : 'b', `${row.phone} on its carrier`);
      }
    });

    it('passes over a throttled carrier whose line is past the backlog limit; not one that is only throttled', async () => {
      const phones = ['0521230201', '0521230202', '0521230203', '0521230204', '0521230205', '0521230206'];
      for (const throttled of [false, true]) {
        const a = new HeldCarrier('a');
        const b = new HeldCarrier('b');
        b.release();
        if (throttled) a.throttledSince = Date.now();
        const dispatcher = dispatcherOver(a, b, 'a,b', 2);
        const reply = await s.sms({ destinations: { phone: phones }, message: `backlog ${throttled}` });
        assert.equal(reply.status, 0);
        const batch = dispatcher.runBatch();
        await eventually(async () => a.received.length === 1 || undefined, 5000, 'the first message with a');
        await new Promise((r) => setTimeout(r, 100));
        a.release();
        assert.equal(await batch, phones.length);
        // A window of one: the first is with a, two more wait in its line (the limit), the rest go to b.
        assert.equal(a.received.length, throttled ? 3 : phones.length, `throttled ${throttled}: ${a.received}`);
        assert.equal(b.received.length, throttled ? phones.length - 3 : 0);
        assert.equal(new Set([...a.received, ...b.received]).size, phones.length, 'each message once');
      }
    });
  });
}
