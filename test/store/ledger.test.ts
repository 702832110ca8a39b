// The credit ledger on every store: a change and its entry land together; a debit the balance cannot cover
// changes nothing and leaves no entry, even in a transaction that goes on and commits.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { applyLedgerChange } from '../../src/store/ledger.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';

const targets = await storeTargets();
for (const target of targets) {
  describe(`credit ledger (${target.name})`, () => {
    let t: TestService;
    let accountId: number;
    const db = () => t.service.store.db;
    const credits = async () =>
      Number(
        (await db().selectFrom('accounts').select('credits').where('id', '=', accountId).executeTakeFirstOrThrow())
          .credits,
      );
    const entries = async () =>
      (
        await db()
          .selectFrom('ledger_entries')
          .select(['amount', 'reason'])
          .where('account_id', '=', accountId)
          .where('currency', '=', 'credits')
          .orderBy('id')
          .execute()
      ).map((e) => `${Number(e.amount)} ${e.reason}`);

    before(async () => {
      t = await startTestService(target);
      await t.account('ledgeruser');
      accountId = await t.accountId('ledgeruser');
    });
    after(() => t.close());

    it('records each change beside the balance; an uncovered debit returns false and leaves neither', async () => {
      const start = await credits();
      const change = (amount: number, reason: string) => ({
        accountId,
        currency: 'credits' as const,
        amount,
        reason,
        now: 1000,
      });
      const before = await entries();
      const results = await db()
        .transaction()
        .execute(async (trx) => [
          await applyLedgerChange(trx, change(5, 'top up')),
          await applyLedgerChange(trx, change(-(start + 6), 'too much')),
          await applyLedgerChange(trx, change(-2, 'fits')),
        ]);
      assert.deepEqual(results, [true, false, true]);
      assert.equal(await credits(), start + 3);
      assert.deepEqual((await entries()).slice(before.length), ['5 top up', '-2 fits']);
    });
  });
}
