// A carrier added while the service runs, and a send the API accepts for it before the node delivering it has read
// it again: the message is not failed as unroutable; the dispatcher reads its carriers again (the API saw the
// carrier, so this node must too) and the message reaches the new carrier. The node's own periodic reading is set
// far beyond the test, so only that reading on demand can route it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { carriersComponent } from '../../src/delivery/carriers.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { simCarrierArgs, startSmscSimProcess, type SmscSimProcess } from '../helpers/smsc-sim-process.ts';
import { storeTargets } from '../helpers/stores.ts';
import { dlrById, eventually, mobiles, newSender, type Sender } from '../delivery/delivery-helpers.ts';

const international = (phone: string) => `972${phone.slice(1)}`;

for (const [index, target] of (await storeTargets()).entries()) {
  describe(`a carrier added live, a send accepted before the node read it (${target.name})`, () => {
    let sim: SmscSimProcess;
    let t: TestService;
    let s: Sender;

    before(async () => {
      sim = await startSmscSimProcess(['--receipt-delay', '20']);
      t = await startTestService(target, {
        env: { YONA_SIMULATORS: 'off' },
        components: [
          carriersComponent({
            settings: { pollMs: 20 },
            config: loadConfig({ YONA_SIMULATORS: 'off' }),
            reloadMs: 600_000,
          }),
        ],
      });
      s = await newSender(t, 'early', 100);
    });
    after(async () => {
      await t?.close();
      await sim?.stop();
    });

    it('is delivered through the new carrier, not failed as unroutable', async () => {
      const [refusedPhone, phone] = mobiles(2, 547_000_000 + index * 1000);
      const refused = await s.sms({ destinations: { phone: [{ $: { id: refusedPhone }, _: refusedPhone }] } });
      assert.equal(refused.status, 5, JSON.stringify(refused));

      await t.admin(...simCarrierArgs('late', sim));
      // The API reads its carriers every 2 s; the node delivering has not read them since it started.
      const accepted = await eventually(
        async () => {
          const r = await s.sms({ destinations: { phone: [{ $: { id: phone }, _: phone }] } });
          return r.status === 0 ? r : undefined;
        },
        10_000,
        'the send accepted',
      );
      assert.equal(accepted.status, 0);
      const report = await eventually(
        async () => {
          const r = (await dlrById(s, [phone])).get(phone);
          return r && r.status !== '-1' && r.status !== '100' ? r : undefined;
        },
        15_000,
        'a final report',
      );
      assert.equal(report.status, '102', JSON.stringify(report));
      assert.equal((await sim.messages(international(phone))).length, 1, 'the new carrier took it once');
      const row = await t.service.store.db
        .selectFrom('messages')
        .select(['carrier'])
        .where('phone', '=', international(phone))
        .executeTakeFirstOrThrow();
      assert.equal(row.carrier, 'late');
    });
  });
}
