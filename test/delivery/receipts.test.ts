// Receipt application on every store: per-part statuses and the message rule, monotone statuses (2 may be
// replaced by a real receipt), receipts that arrive before their submit_sm_resp is recorded, the sweeper,
// and one dlr push event per status change.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { claimDueMessages, recordOutcomes } from '../../src/store/dispatch.ts';
import { insertPushRegistration } from '../../src/store/push.ts';
import { deriveMessageStatus, mayReplace, mergePartStatus } from '../../src/domain/lifecycle.ts';
import { applyReceipts, rematchPending, sweepUnconfirmed, type IncomingReceipt } from '../../src/store/receipts.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { newSender, settleOnClose, type Sender } from './delivery-helpers.ts';

describe('receipt rules', () => {
  it('a part keeps its first final status; intermediate only fills an empty slot', () => {
    assert.equal(mergePartStatus(null, -1), -1);
    assert.equal(mergePartStatus(-1, 102), 102);
    assert.equal(mergePartStatus(102, -1), 102);
    assert.equal(mergePartStatus(102, 101), 102);
  });
  it('a message is final once every part is: 102 if all delivered, else the first failed part', () => {
    assert.equal(deriveMessageStatus([102], 1), 102);
    assert.equal(deriveMessageStatus([102, -1], 2), undefined);
    assert.equal(deriveMessageStatus([102], 2), undefined);
    assert.equal(deriveMessageStatus([102, 102, 102], 3), 102);
    assert.equal(deriveMessageStatus([103, 102, 101], 3), 103);
    assert.equal(deriveMessageStatus([102, 15, 101], 3), 15);
  });
  it('statuses only move forward; the timeout 2 yields to a real final status', () => {
    assert.equal(mayReplace(null, 102), true);
    assert.equal(mayReplace(-1, 101), true);
    assert.equal(mayReplace(2, 102), true);
    assert.equal(mayReplace(102, 101), false);
    assert.equal(mayReplace(101, 102), false);
    assert.equal(mayReplace(102, 102), false);
  });
});

const targets = await storeTargets();
for (const target of targets) {
  describe(`receipts (${target.name})`, () => {
    let t: TestService;
    let s: Sender;
    let now = Date.now();
    let seq = 0;

    before(async () => {
      t = await startTestService(target, { clock: () => now });
      settleOnClose(t);
      s = await newSender(t, 'receipts1', 1000);
      await insertPushRegistration(t.service.store.db, {
        accountId: await accountId(),
        type: 'dlr',
        url: 'https://push.example.com/dlr',
        now,
      });
    });
    after(() => t.close());

    const accountId = () => t.accountId('receipts1');
    const apply = (receipts: Array<Omit<IncomingReceipt, 'carrier' | 'at'>>) =>
      t.service.store.db.transaction().execute((trx) =>
        applyReceipts(
          trx,
          receipts.map((r) => ({ carrier: 'c', at: now, ...r })),
          now,
        ),
      );
    const message = async (id: number) =>
      t.service.store.db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const events = async (id: number) =>
      (
        await t.service.store.db
          .selectFrom('push_events')
          .select('payload')
          .where('order_key', '=', String(id))
          .orderBy('id')
          .execute()
      ).map((e) => JSON.parse(e.payload).status);

    // Sends one message and claims it; `record` writes it submitted with one carrier id per part (done at once unless `later`).
    async function submitted(
      text: string,
      later = false,
      given?: string[],
    ): Promise<{ id: number; cids: string[]; record(): Promise<void> }> {
      now += 1000;
      await s.sms({ destinations: { phone: ['0521239999'] }, message: text });
      const { db } = t.service.store;
      const lease = now + 60_000;
      const [m] = await db.transaction().execute((trx) => claimDueMessages(trx, now, lease, 10));
      const parts = Number((await message(m.id)).parts);
      const cids = given ?? Array.from({ length: parts }, (_, i) => `cid-${++seq}-${i}`);
      const outcome = { kind: 'submitted' as const, message: m, carrier: 'c', carrierMessageIds: cids };
      const record = () => db.transaction().execute((trx) => recordOutcomes(trx, [outcome], lease, now, 60_000));
      if (!later) await record();
      return { id: m.id, cids, record };
    }

    it('a single-part message: intermediate then delivered; a late failure and a late intermediate change nothing', async () => {
      const m = await submitted('short');
      assert.deepEqual(await apply([{ carrierMessageId: m.cids[0], status: -1 }]), {
        matched: 1,
        pending: 0,
        changed: 0,
      });
      assert.equal((await message(m.id)).status, -1);
      await apply([{ carrierMessageId: m.cids[0], status: 102 }]);
      await apply([
        { carrierMessageId: m.cids[0], status: 101 },
        { carrierMessageId: m.cids[0], status: -1 },
      ]);
      const row = await message(m.id);
      assert.deepEqual([row.state, row.status], ['done', 102]);
      assert.deepEqual(await events(m.id), ['102'], 'one dlr event per change');
    });

    it('a carrier id given again, 40 days later, belongs to the new message: its receipt lands there and one row is kept', async () => {
      const first = await submitted('first use', false, ['cid-again']);
      await apply([{ carrierMessageId: 'cid-again', status: 102 }]);
      now += 40 * 86_400_000; // a month later: on PostgreSQL the second row goes to another month's partition
      const second = await submitted('second use', false, ['cid-again']);
      await apply([{ carrierMessageId: 'cid-again', status: 101 }]);
      assert.deepEqual([(await message(second.id)).status, (await message(first.id)).status], [101, 102]);
      const rows = await t.service.store.db
        .selectFrom('carrier_message_ids')
        .select('message_id')
        .where('carrier_message_id', '=', 'cid-again')
        .execute();
      assert.deepEqual(
        rows.map((r) => Number(r.message_id)),
        [second.id],
      );
    });

    it('a long message is final only when every part is; the first failed part decides', async () => {
      const m = await submitted('x'.repeat(400));
      assert.equal(m.cids.length, 3);
      await apply([
        { carrierMessageId: m.cids[0], status: 102 },
        { carrierMessageId: m.cids[2], status: 101 },
      ]);
      assert.equal((await message(m.id)).status, -1, 'part 1 has no receipt yet');
      await apply([{ carrierMessageId: m.cids[1], status: 103 }]);
      assert.deepEqual([(await message(m.id)).status, await events(m.id)], [103, ['103']]);
      const all = await submitted('y'.repeat(400));
      await apply(all.cids.map((c) => ({ carrierMessageId: c, status: 102 })));
      assert.equal((await message(all.id)).status, 102);
      const parts = await t.service.store.db
        .selectFrom('carrier_message_ids')
        .select('part_status')
        .where('message_id', '=', all.id)
        .execute();
      assert.deepEqual(
        parts.map((p) => p.part_status),
        [102, 102, 102],
      );
    });

    it('the sweeper gives 2 after the receipt window; a late final receipt replaces it, an intermediate one does not', async () => {
      const m = await submitted('no receipt');
      const { db } = t.service.store;
      assert.equal(await db.transaction().execute((trx) => sweepUnconfirmed(trx, now + 59_999, 100)), 0);
      assert.equal(await db.transaction().execute((trx) => sweepUnconfirmed(trx, now + 60_000, 100)), 1);
      assert.deepEqual([(await message(m.id)).state, (await message(m.id)).status], ['done', 2]);
      await apply([{ carrierMessageId: m.cids[0], status: -1 }]);
      assert.equal((await message(m.id)).status, 2);
      await apply([{ carrierMessageId: m.cids[0], status: 102 }]);
      assert.equal((await message(m.id)).status, 102);
      assert.deepEqual(await events(m.id), ['2', '102']);
    });

    it('a receipt that arrives before its submit_sm_resp is recorded waits, then applies', async () => {
      const m = await submitted('early receipt', true);
      assert.deepEqual(await apply([{ carrierMessageId: m.cids[0], status: 15 }]), {
        matched: 0,
        pending: 1,
        changed: 0,
      });
      const { db } = t.service.store;
      assert.deepEqual(
        await db.transaction().execute((trx) => rematchPending(trx, now, 60_000)),
        { applied: 0, changed: 0 },
        'nothing to match yet',
      );
      await m.record();
      assert.equal((await message(m.id)).status, -1);
      assert.deepEqual(await db.transaction().execute((trx) => rematchPending(trx, now, 60_000)), {
        applied: 1,
        changed: 1,
      });
      assert.deepEqual([(await message(m.id)).status, await events(m.id)], [15, ['15']]);
      assert.equal((await db.selectFrom('pending_receipts').selectAll().execute()).length, 0);
    });

    it('a call outcome that arrives before its id is recorded keeps its refund and playing time until it applies', async () => {
      const balance = async () => Number((await s.call('balance', {})).balance);
      const before = await balance();
      const m = await submitted('never placed', true);
      assert.equal(await balance(), before - 1);
      assert.deepEqual(await apply([{ carrierMessageId: m.cids[0], status: 101, refund: true, durationMs: 4200 }]), {
        matched: 0,
        pending: 1,
        changed: 0,
      });
      await m.record();
      const { db } = t.service.store;
      assert.deepEqual(await db.transaction().execute((trx) => rematchPending(trx, now, 60_000)), {
        applied: 1,
        changed: 1,
      });
      const row = await message(m.id);
      assert.deepEqual([row.status, Number(row.call_seconds)], [101, 4]);
      assert.equal(await balance(), before, 'refunded once matched');
    });

    it('a receipt for an id nobody knows is kept, not applied', async () => {
      assert.deepEqual(await apply([{ carrierMessageId: 'never-sent', status: 102 }]), {
        matched: 0,
        pending: 1,
        changed: 0,
      });
      const kept = await t.service.store.db
        .selectFrom('pending_receipts')
        .select(['carrier_message_id', 'status'])
        .execute();
      assert.deepEqual(
        kept.map((r) => ({ ...r, status: Number(r.status) })),
        [{ carrier_message_id: 'never-sent', status: 102 }],
      );
    });
  });
}
