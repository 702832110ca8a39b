// The store writes what the lifecycle decides, on every store: the statuses and states its SQL sets for a
// dispatch outcome, a blocked recipient and the end of the receipt window are those of domain/lifecycle.ts, with
// the refunds it names; and the follow-up call of a filtered handset is charged for a long text as
// domain/pricing.ts prices it (700 letters: 63.6 s once, 4 credits and 120 s to play; twice, 6 credits and 180 s).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LEASED_STATE, nextState, type LifecycleEvent, type Standing } from '../../src/domain/lifecycle.ts';
import { claimDueMessages, recordOutcomes, suppressBlocked, type DispatchOutcome } from '../../src/store/dispatch.ts';
import { applyReceipts, sweepUnconfirmed } from '../../src/store/receipts.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { newSender, type Sender } from '../operations/send-helpers.ts';

const LEASED: Standing = { state: LEASED_STATE, status: null };
const decided = (event: LifecycleEvent) => {
  const t = nextState(LEASED, event)!;
  return [t.state, t.status];
};

const targets = await storeTargets();
for (const target of targets) {
  describe(`lifecycle writes (${target.name})`, () => {
    let t: TestService;
    let s: Sender;
    let now = Date.UTC(2026, 5, 1, 9);
    let seq = 0;

    before(async () => {
      t = await startTestService(target, { clock: () => now });
      s = await newSender(t, 'lifecycle1', 1000);
    });
    after(() => t.close());

    const row = (id: number) =>
      t.service.store.db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const figures = async (id: number) => {
      const m = await row(id);
      return { standing: [m.state, m.status === null ? null : Number(m.status)], cost: Number(m.cost_credits) };
    };
    // Sends one text (or the given send) and claims its message under a lease.
    async function claimed(doc: Record<string, unknown> = {}) {
      now += 1000;
      assert.equal(
        (await s.sms({ destinations: { phone: [`05212300${String(++seq).padStart(2, '0')}`] }, ...doc })).status,
        0,
      );
      const { db } = t.service.store;
      const lease = now + 60_000;
      const [m] = await db.transaction().execute((trx) => claimDueMessages(trx, now, lease, 10));
      const record = (outcome: DispatchOutcome) =>
        db.transaction().execute((trx) => recordOutcomes(trx, [outcome], lease, now, 60_000));
      return { m, record };
    }

    it('a carrier taking it, a retry and a failure write the states and statuses the lifecycle decides', async () => {
      const taken = await claimed();
      await taken.record({ kind: 'submitted', message: taken.m, carrier: 'c', carrierMessageIds: [`cid-${seq}`] });
      assert.deepEqual((await figures(taken.m.id)).standing, decided({ kind: 'submitted' }));

      const retried = await claimed();
      await retried.record({
        kind: 'retry',
        message: retried.m,
        carrier: 'c',
        at: now + 365 * 86_400_000,
        error: 'throttled',
      });
      assert.deepEqual((await figures(retried.m.id)).standing, decided({ kind: 'retry' }));

      const before = (await s.balance()).credits;
      const failed = await claimed();
      await failed.record({ kind: 'failed', message: failed.m, carrier: 'c', status: 18, error: 'illegal message' });
      assert.deepEqual(await figures(failed.m.id), { standing: decided({ kind: 'failed', status: 18 }), cost: 0 });
      assert.equal((await s.balance()).credits, before, 'the failed text is refunded');
    });

    it('a blocked recipient is skipped as the lifecycle decides, and refunded', async () => {
      const { m } = await claimed();
      await s.call('addNumBL', { phone: m.phone });
      const before = (await s.balance()).credits;
      await t.service.store.db.transaction().execute((trx) => suppressBlocked(trx, [m], now));
      assert.deepEqual(await figures(m.id), { standing: decided({ kind: 'blocked' }), cost: 0 });
      assert.equal((await s.balance()).credits, before + 1);
    });

    it('the end of the receipt window writes what the lifecycle decides for a message awaiting receipts', async () => {
      const { m, record } = await claimed();
      await record({ kind: 'submitted', message: m, carrier: 'c', carrierMessageIds: [`cid-${seq}`] });
      now += 61_000;
      const { db } = t.service.store;
      assert.ok((await db.transaction().execute((trx) => sweepUnconfirmed(trx, now, 1000))) >= 1);
      const ended = nextState({ state: 'submitted', status: -1 }, { kind: 'window-ended' })!;
      assert.deepEqual((await figures(m.id)).standing, [ended.state, ended.status]);
    });

    for (const [repeat, credits, paidSeconds] of [
      [1, 4, 120],
      [2, 6, 180],
    ] as const) {
      it(`a filtered handset's follow-up call of 700 letters played ${repeat} time(s) costs ${credits} credits and plays at most ${paidSeconds} s`, async () => {
        const { m, record } = await claimed({ message: 'א'.repeat(700), tts: { type: 2, repeat } });
        await record({ kind: 'submitted', message: m, carrier: 'c', carrierMessageIds: [`cid-${seq}`] });
        const before = (await s.balance()).credits;
        const { db } = t.service.store;
        const applied = await db
          .transaction()
          .execute((trx) =>
            applyReceipts(trx, [{ carrier: 'c', carrierMessageId: `cid-${seq}`, status: 15, at: now }], now),
          );
        assert.equal(applied.followUpCalls, 1);
        const call = await db
          .selectFrom('messages')
          .selectAll()
          .where('campaign_id', '=', m.campaign_id)
          .where('channel', '=', 'call')
          .executeTakeFirstOrThrow();
        assert.equal(Number(call.cost_credits), credits);
        assert.deepEqual(JSON.parse(call.spoken!), { voice: 'ymMale', rate: 0, repeat, paidSeconds });
        assert.equal((await s.balance()).credits, before - credits);
      });
    }
  });
}
