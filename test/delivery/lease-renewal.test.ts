// A batch's claim under slow outcome writes and lost leases. The lease of what a batch still holds is renewed
// on its own path, so outcome writes that stall (here: a table they write to is locked) do not let it lapse and
// a second dispatcher on the same store never takes and sends again what the first is still sending. A renewal
// that finds a message taken by another claimer drops it from the batch: it is not submitted, and its outcome
// is not written over the new claimer's.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { SmscSimulator } from '../../src/carriers/simulator/index.ts';
import { SmppCarrier } from '../../src/carriers/smpp/connector.ts';
import { deliverySettings } from '../../src/config.ts';
import { BatchRecorder } from '../../src/delivery/batch-recorder.ts';
import { Dispatcher } from '../../src/delivery/dispatcher.ts';
import { Router } from '../../src/delivery/routing.ts';
import { createLogger } from '../../src/logger.ts';
import { claimDueMessages, type DispatchOutcome } from '../../src/store/dispatch.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import {
  eventually,
  mobiles,
  newSender,
  settleOnClose,
  simCarrier,
  startDelivery,
  stateCounts,
  type DeliveryHarness,
} from './delivery-helpers.ts';

const targets = await storeTargets();

for (const target of targets) {
  describe(`a batch whose messages another claimer took (${target.name})`, () => {
    let t: TestService;
    before(async () => {
      t = await startTestService(target);
      settleOnClose(t);
    });
    after(() => t.close());

    it('stops holding them at the next renewal and writes no outcome over the new claim', async () => {
      const s = await newSender(t, 'leaselost', 10);
      const reply = await s.sms({ destinations: { phone: mobiles(3, 530_000_000) }, message: 'held or not' });
      assert.equal(reply.status, 0);
      const { store } = t.service;
      let clockNow = Date.now();
      let lastLease = 0;
      const nextLease = () => (lastLease = Math.max(clockNow + 300, lastLease + 1));
      const lease = nextLease();
      const claimed = await store.db.transaction().execute((trx) => claimDueMessages(trx, clockNow, lease, 10));
      assert.equal(claimed.length, 3);
      const [kept, taken, alsoKept] = claimed;
      const lost: number[] = [];
      const recorder = new BatchRecorder(
        {
          store,
          clock: () => clockNow,
          leaseMs: 300,
          receiptWindowMs: 60_000,
          nextLease,
          written: () => {},
          failed: (err) => assert.fail(String(err)),
          lost: (ids) => lost.push(...ids),
        },
        claimed.map((m) => m.id),
        lease,
      );
      // Another claimer takes one message (as after a lapsed lease).
      const theirs = lease + 1_000_000;
      await store.db.updateTable('messages').set({ lease_until: theirs }).where('id', '=', taken.id).execute();
      await eventually(() => lost.length > 0, 3000, 'a renewal ran');
      assert.deepEqual(lost, [taken.id]);
      assert.equal(recorder.holds(taken.id), false, 'not submitted: another claimer has it');
      assert.equal(recorder.holds(kept.id), true);
      const submitted = (m: (typeof claimed)[number], id: string): DispatchOutcome => ({
        kind: 'submitted',
        message: m,
        carrier: 'sim',
        carrierMessageIds: [id],
      });
      // An answer for the lost message (it was on the wire before the renewal) is not written over the claim.
      recorder.add(submitted(kept, 'c1'));
      recorder.add(submitted(taken, 'c2'));
      clockNow += 10;
      await recorder.finish();
      const rows = await store.db
        .selectFrom('messages')
        .select(['id', 'state', 'lease_until'])
        .where('campaign_id', '=', reply.campaign_id)
        .orderBy('id')
        .execute();
      const byId = new Map(rows.map((r) => [r.id, r]));
      assert.equal(byId.get(kept.id)?.state, 'submitted');
      assert.equal(byId.get(taken.id)?.state, 'submitting', 'left to the claimer that holds it');
      assert.equal(Number(byId.get(taken.id)?.lease_until), theirs);
      assert.equal(byId.get(alsoKept.id)?.state, 'submitting', 'never answered: still under our renewed lease');
      assert.ok(Number(byId.get(alsoKept.id)?.lease_until) > lease, 'its lease was renewed');
    });

    it('drops a message whose lease is about to end when no renewal extended it', async () => {
      const s = await newSender(t, 'leaselate', 10);
      await s.sms({ destinations: { phone: mobiles(1, 531_000_000) }, message: 'late' });
      const { store } = t.service;
      const clockNow = Date.now();
      const lease = clockNow + 30_000;
      const [m] = await store.db.transaction().execute((trx) => claimDueMessages(trx, clockNow, lease, 10));
      let now = clockNow;
      const recorder = new BatchRecorder(
        {
          store,
          clock: () => now,
          leaseMs: 30_000,
          receiptWindowMs: 60_000,
          nextLease: () => now + 30_000,
          written: () => {},
          failed: () => {},
        },
        [m.id],
        lease,
      );
      assert.equal(recorder.holds(m.id), true);
      now = lease - 5_000; // less than a third of the lease left, and no renewal ran
      assert.equal(recorder.holds(m.id), false);
      await recorder.finish();
    });
  });
}

// Outcome writes stalled behind a lock, a second dispatcher polling the same store: PostgreSQL only (SQLite has
// one writer, so a stalled write stalls every claimer as well).
for (const target of targets.filter((x) => x.name === 'postgres')) {
  describe(`outcome writes that stall longer than the lease (${target.name})`, () => {
    const RECIPIENTS = 30;
    let h: DeliveryHarness;
    const other = new SmscSimulator({ systemId: 'yona', password: 'secret', receiptDelayMs: 5 });
    let otherCarrier: SmppCarrier;
    let second: Dispatcher;

    before(async () => {
      h = await startDelivery(target, {
        sim: { receiptDelayMs: 5 },
        carrier: { windowSize: 10, binds: 1, maxSubmitsPerSecond: 10 },
        settings: { batchSize: RECIPIENTS, lanes: 1, leaseMs: 1000 },
      });
      otherCarrier = new SmppCarrier(simCarrier(await other.start(0), { name: 'sim' }));
      await otherCarrier.start();
      second = new Dispatcher({
        store: h.t.service.store,
        logger: createLogger('silent'),
        signals: h.t.service.signals,
        clock: Date.now,
        carriers: new Map([['sim', otherCarrier]]),
        routers: new Map([['sms', new Router([], ['sim'])]]),
        settings: { ...deliverySettings({}), lanes: 1, leaseMs: 1000, pollMs: 50, batchSize: RECIPIENTS },
      });
    });
    after(async () => {
      await second.stop();
      await otherCarrier.stop();
      await other.stop();
      await h.close();
    });

    it('keeps the claim: no message is taken and sent again by the other dispatcher', async () => {
      const s = await newSender(h.t, 'stalledwrites', RECIPIENTS);
      const reply = await s.sms({ destinations: { phone: mobiles(RECIPIENTS, 560_000_000) }, message: 'once only' });
      assert.equal(reply.status, 0);
      await eventually(() => h.simulator.messages().length >= 2, 10_000, 'the batch is being submitted');
      const locker = new pg.Client({ connectionString: h.t.config.databaseUrl });
      await locker.connect();
      try {
        await locker.query('begin');
        await locker.query('lock table carrier_message_ids in exclusive mode');
        second.start({ texts: true, calls: false });
        await new Promise((r) => setTimeout(r, 2500)); // two and a half leases of stalled writes
        await locker.query('commit');
      } finally {
        await locker.end();
      }
      // Sent by either dispatcher (the second one's receipts are not followed: its carrier is its own).
      await eventually(
        async () => {
          const counts = await stateCounts(h.t, reply.campaign_id);
          return (counts.submitted ?? 0) + (counts.done ?? 0) === RECIPIENTS ? true : undefined;
        },
        30_000,
        'every message submitted',
      );
      console.log(
        `# sent by the first dispatcher: ${h.simulator.messages().length}, by the second: ${other.messages().length}`,
      );
      const copies = new Map<string, number>();
      for (const m of [...h.simulator.messages(), ...other.messages()])
        copies.set(m.destination, (copies.get(m.destination) ?? 0) + 1);
      assert.equal(copies.size, RECIPIENTS, 'every destination got the message');
      assert.deepEqual(
        [...copies].filter(([, n]) => n > 1),
        [],
        'no destination got it twice',
      );
    });
  });
}
