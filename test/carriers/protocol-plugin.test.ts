// A new carrier protocol is one folder and one line: a tiny in-memory protocol registered through
// registerProtocol carries real sends over HTTP on every store, its receipts (in our delivery statuses) reach
// dlr, a permanent refusal ends the message with the protocol's status and refunds it, and inbound texts land.
// With nothing more, `yona admin add-carrier --protocol memory` stores its carriers, `add-route` routes to them,
// `yona serve` binds them from the store, and their shares are leased under the protocol's name.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { registerProtocol } from '../../src/carriers/index.ts';
import { loadConfig } from '../../src/config.ts';
import { carriersComponent } from '../../src/delivery/carriers.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import type { Carrier, InboundSms, OutboundSms, Receipt, SubmitResult } from '../../src/carriers/types.ts';
import { storeTargets } from '../helpers/stores.ts';
import {
  dlrById,
  eventually,
  newSender,
  startDelivery,
  windowAroundNow,
  type DeliveryHarness,
  type Sender,
} from '../delivery/delivery-helpers.ts';

/** Accepts every message, reports it delivered at once, and refuses texts that say "refuse" for good (18). */
class MemoryCarrier implements Carrier {
  readonly protocol = 'memory';
  readonly inFlightLimit = 10;
  readonly sent: OutboundSms[] = [];
  private receipts: Array<(r: Receipt) => void | Promise<void>> = [];
  private inbound: Array<(s: InboundSms) => void | Promise<void>> = [];
  /** Shares in use (indexes), as the node's leases gave them. */
  using: number[] = [];
  constructor(
    readonly name: string,
    readonly shares?: number,
  ) {}
  async useShares(indexes: number[]): Promise<void> {
    this.using = indexes;
  }
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
  canSubmit(): boolean {
    return true;
  }
  async submit(sms: OutboundSms): Promise<SubmitResult> {
    if (sms.text.includes('refuse'))
      return { ok: false, transient: false, error: 'refused by the memory carrier', status: 18 };
    this.sent.push(sms);
    const id = `mem-${sms.messageId}`;
    setTimeout(() => this.receipts.forEach((h) => void h({ carrierMessageId: id, status: 102 })), 20);
    return { ok: true, carrierMessageIds: [id] };
  }
  onReceipt(handler: (r: Receipt) => void | Promise<void>): void {
    this.receipts.push(handler);
  }
  onInbound(handler: (s: InboundSms) => void | Promise<void>): void {
    this.inbound.push(handler);
  }
  onLateAccept(): void {}
  /** Delivers an inbound text as a handset would. */
  async receive(sms: InboundSms): Promise<void> {
    for (const h of this.inbound) await h(sms);
  }
}

const carriers = new Map<string, MemoryCarrier>();
registerProtocol('memory', {
  create: (config) => {
    const carrier = new MemoryCarrier(config.name, config.shares === undefined ? undefined : Number(config.shares));
    carriers.set(config.name, carrier);
    return carrier;
  },
});

const targets = await storeTargets();
for (const target of targets) {
  describe(`a carrier protocol registered in one line (${target.name})`, () => {
    let h: DeliveryHarness;
    let s: Sender;
    const name = `memory-${target.name}`;

    before(async () => {
      h = await startDelivery(target, { setup: () => ({ carriers: [{ name, protocol: 'memory' }], routes: [] }) });
      s = await newSender(h.t, 'plugged', 10);
    });
    after(() => h.close());

    it('sends through it and reports its receipts', async () => {
      const reply = await s.sms({
        destinations: { phone: [{ $: { id: 'm1' }, _: '0521260001' }] },
        message: 'over memory',
      });
      assert.equal(reply.status, 0, reply.message);
      const report = await eventually(
        async () => (await dlrById(s, ['m1'])).get('m1')?.status === '102' || undefined,
        8000,
        'the receipt',
      );
      assert.ok(report);
      assert.deepEqual(
        carriers.get(name)!.sent.map((m) => [m.destination, m.text]),
        [['972521260001', 'over memory']],
      );
    });

    it('ends a message it refuses for good with its status, refunded', async () => {
      const before = (await s.balance()).credits;
      await s.sms({ destinations: { phone: [{ $: { id: 'm2' }, _: '0521260002' }] }, message: 'please refuse this' });
      await eventually(
        async () => (await dlrById(s, ['m2'])).get('m2')?.status === '18' || undefined,
        8000,
        'status 18',
      );
      assert.equal((await s.balance()).credits, before);
    });

    it('takes its inbound texts', async () => {
      await h.t.admin('add-number', 'plugged', '0559991111');
      await carriers
        .get(name)!
        .receive({ from: '972521260003', to: '972559991111', text: 'hello back', at: Date.now() });
      const inbox = await eventually(
        async () => {
          const r = await s.call('incoming', windowAroundNow());
          return (r.transactions as unknown[]).length ? r.transactions : undefined;
        },
        8000,
        'the inbound text',
      );
      assert.equal((inbox as Array<{ message: string }>)[0].message, 'hello back');
    });
  });
}

for (const target of targets) {
  describe(`the CLI, routes and leases of a protocol registered in one line (${target.name})`, () => {
    let t: TestService;
    const component = carriersComponent({ settings: { pollMs: 20 }, config: loadConfig({}) });

    before(async () => {
      const first = await startTestService(target);
      await first.admin('add-carrier', 'mem-a', '--protocol', 'memory', '--settings', '{"shares":2}');
      await first.admin('add-carrier', 'mem-b', '--protocol', 'memory', '--settings', '{"shares":1}');
      await first.admin('add-route', 'default', 'mem-a');
      await first.admin('add-route', '97253', 'mem-b');
      t = await first.restart({ components: [component] });
    });
    after(() => t.close());

    it('add-carrier stores its carriers and `carriers` lists them with their routes', async () => {
      const listed = (await t.admin('carriers')).join('\n');
      assert.match(listed, /carrier mem-a: protocol memory/);
      assert.match(listed, /carrier mem-b: protocol memory/);
      assert.match(listed, /route default -> mem-a/);
      assert.match(listed, /route 97253 -> mem-b/);
      await assert.rejects(t.admin('add-carrier', 'mem-c', '--protocol', 'memory', '--settings', '[1]'), /JSON object/);
      await assert.rejects(t.admin('add-carrier', 'mem-c', '--protocol', 'nowhere'), /unknown protocol "nowhere"/);
    });

    it('binds them from the store and routes each destination to its carrier', async () => {
      const s = await newSender(t, 'routed', 10);
      const reply = await s.sms({
        destinations: {
          phone: [
            { $: { id: 'r1' }, _: '0521260011' },
            { $: { id: 'r2' }, _: '0531260012' },
          ],
        },
        message: 'routed by prefix',
      });
      assert.equal(reply.status, 0, reply.message);
      await eventually(
        async () => {
          const report = await dlrById(s, ['r1', 'r2']);
          return (report.get('r1')?.status === '102' && report.get('r2')?.status === '102') || undefined;
        },
        8000,
        'both receipts',
      );
      assert.deepEqual(
        carriers.get('mem-a')!.sent.map((m) => m.destination),
        ['972521260011'],
      );
      assert.deepEqual(
        carriers.get('mem-b')!.sent.map((m) => m.destination),
        ['972531260012'],
      );
    });

    it('leases their shares under the protocol name and uses the ones it holds', async () => {
      const leases = await eventually(
        async () => {
          const held = t.service.node.leases().filter((l) => l.startsWith('memory:'));
          return held.length === 3 ? held.sort() : undefined;
        },
        8000,
        'the shares',
      );
      assert.deepEqual(leases, ['memory:mem-a#0', 'memory:mem-a#1', 'memory:mem-b#0']);
      assert.deepEqual(carriers.get('mem-a')!.using, [0, 1]);
      const dispatcher = component.health!().find((h) => h.role === 'dispatcher');
      assert.deepEqual([...((dispatcher?.holds as string[]) ?? [])].sort(), leases);
    });
  });
}
