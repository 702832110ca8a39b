// A weighted route's split, against two real `yona smsc-sim` processes on every store: a route `a:70 b:30` and one
// 10,000-recipient campaign sent through the HTTP API; every message reaches exactly one simulator, the one
// recorded for it, and each carrier's share is within 2 points of its weight (counted on the simulators and in
// the store alike).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { carriersComponent } from '../../src/delivery/carriers.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { simCarrierArgs, startSmscSimProcess, type SmscSimProcess } from '../helpers/smsc-sim-process.ts';
import { storeTargets } from '../helpers/stores.ts';
import { eventually, mobiles, newSender } from '../delivery/delivery-helpers.ts';

const international = (phone: string) => `972${phone.slice(1)}`;
const RECIPIENTS = 10_000;

const targets = await storeTargets();
for (const [index, target] of targets.entries()) {
  describe(`a 70/30 weighted route over two smsc-sim carriers (${target.name})`, () => {
    let a: SmscSimProcess;
    let b: SmscSimProcess;
    let t: TestService;

    const addCarrier = (name: string, sim: SmscSimProcess) => t.admin(...simCarrierArgs(name, sim, '--window', '100'));

    before(async () => {
      a = await startSmscSimProcess(['--receipt-delay', '20']);
      b = await startSmscSimProcess(['--receipt-delay', '20']);
      t = await startTestService(target);
      await addCarrier('a', a);
      await addCarrier('b', b);
      await t.admin('add-route', 'default', 'a:70', 'b:30');
      t = await t.restart({
        components: [carriersComponent({ settings: { pollMs: 20 }, config: loadConfig({}), reloadMs: 300 })],
      });
    });
    after(async () => {
      await t?.close();
      await a?.stop();
      await b?.stop();
    });

    it('10,000 messages split within 2 points of the weights, each message once, on the carrier recorded', async () => {
      const s = await newSender(t, 'weighted', RECIPIENTS);
      const phones = mobiles(RECIPIENTS, 548_000_000 + index * 200_000);
      const reply = await s.sms({ destinations: { phone: phones }, message: 'weighted split' });
      assert.equal(reply.status, 0, JSON.stringify(reply).slice(0, 300));
      const campaign = Number(reply.campaign_id);
      const rows = await eventually(
        async () => {
          const r = await t.service.store.db
            .selectFrom('messages')
            .select(['phone', 'carrier'])
            .where('campaign_id', '=', campaign)
            .where('state', 'in', ['submitted', 'done'])
            .execute();
          return r.length === RECIPIENTS ? r : undefined;
        },
        240_000,
        'every message submitted',
      );
      const recorded = new Map(rows.map((r) => [r.phone, r.carrier]));
      const onA = new Map<string, number>();
      const onB = new Map<string, number>();
      for (const [sim, seen] of [
        [a, onA],
        [b, onB],
      ] as const)
        for (const m of await sim.messages()) seen.set(m.destination, (seen.get(m.destination) ?? 0) + 1);
      for (const p of phones) {
        const to = international(p);
        const carrier = recorded.get(to);
        assert.equal((onA.get(to) ?? 0) + (onB.get(to) ?? 0), 1, `${p} reached the carriers exactly once`);
        assert.equal((carrier === 'a' ? onA : onB).get(to), 1, `${p} is on the carrier recorded for it (${carrier})`);
      }
      const shareA = onA.size / RECIPIENTS;
      const inStore = rows.filter((r) => r.carrier === 'a').length / RECIPIENTS;
      assert.equal(inStore, shareA, 'the store and the simulators agree');
      assert.ok(Math.abs(shareA - 0.7) <= 0.02, `a took ${(shareA * 100).toFixed(2)}% (weight 70%)`);
      assert.ok(Math.abs(onB.size / RECIPIENTS - 0.3) <= 0.02, `b took ${((onB.size / RECIPIENTS) * 100).toFixed(2)}%`);
    });
  });
}
