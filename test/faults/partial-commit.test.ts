// An unexpected fault answers 998 and commits nothing partial (docs/decisions.md), on every store: a trigger in the
// database fails one insert midway through a multi-statement operation, after other rows of it were written. A
// send to a contact list and phones fails on its third recipient's message row (on PostgreSQL inside the one
// statement that writes the campaign with its messages) or on its debit, its last write, after the campaign and
// every message; a reseller's transfer of credits and money to a sub-account fails on the last of its four ledger
// rows. Each answers 998 and leaves the balances, the ledger, the campaigns and the messages as they were; with
// the trigger gone the same request succeeds.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { newSender, sendTableCounts, startSendingService, type Sender } from '../operations/send-helpers.ts';

const targets = await storeTargets();

/** Makes every insert into `table` whose new row matches `when` (SQL over NEW) fail; returns its removal. */
async function failInserts(t: TestService, target: string, table: string, when: string): Promise<() => Promise<void>> {
  const db = t.service.store.db;
  if (target === 'postgres') {
    await sql
      .raw(`CREATE FUNCTION injected_fault() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'injected fault'; END $$`)
      .execute(db);
    await sql
      .raw(`CREATE TRIGGER injected_fault BEFORE INSERT ON ${table} FOR EACH ROW WHEN (${when})
        EXECUTE FUNCTION injected_fault()`)
      .execute(db);
    return async () => {
      await sql.raw(`DROP TRIGGER injected_fault ON ${table}`).execute(db);
      await sql.raw('DROP FUNCTION injected_fault()').execute(db);
    };
  }
  await sql
    .raw(`CREATE TRIGGER injected_fault BEFORE INSERT ON ${table} WHEN ${when}
      BEGIN SELECT RAISE(ABORT, 'injected fault'); END`)
    .execute(db);
  return async () => void (await sql.raw('DROP TRIGGER injected_fault').execute(db));
}

/** What an operation may change: balances of every account, and the row counts of the send tables. */
async function snapshot(t: TestService): Promise<unknown> {
  const accounts = await t.service.store.db
    .selectFrom('accounts')
    .select(['username', 'credits', 'intl_agorot'])
    .orderBy('username')
    .execute();
  return {
    balances: accounts.map((a) => [a.username, Number(a.credits), Number(a.intl_agorot)]),
    rows: await sendTableCounts(t),
  };
}

for (const target of targets) {
  describe(`an unexpected fault midway answers 998 and commits nothing (${target.name})`, () => {
    let t: TestService;
    let s: Sender;
    let listId: number;

    before(async () => {
      t = await startSendingService(target);
      s = await newSender(t, 'faulty', 100);
      const list = await s.call('newCL', {
        cl: {
          name: 'customers',
          destinations: { destination: [{ phone: '0501111001' }, { phone: '0501111002' }] },
        },
      });
      assert.equal(list.status, 0, list.message);
      listId = Number(list.id);
    });
    after(() => t?.close());

    // Where the send fails: at a message row after others (the campaign written), or at its debit, which comes
    // after the campaign and every message row.
    const SEND_FAULTS = [
      { where: 'its third message row', table: 'messages', when: "NEW.phone = '972501111003'", phone: '0501111003' },
      {
        where: 'its debit, the last write',
        table: 'ledger_entries',
        when: "NEW.reason LIKE 'send:%'",
        phone: '0501111013',
      },
    ];
    for (const fault of SEND_FAULTS) {
      it(`a send to a list and phones failing at ${fault.where}`, async () => {
        const before = await snapshot(t);
        const send = () =>
          s.sms({ destinations: { cl_id: String(listId), phone: [fault.phone, '0501111004'] }, message: 'hi' });
        const heal = await failInserts(t, target.name, fault.table, fault.when);
        try {
          const reply = await send();
          assert.equal(reply.status, 998, JSON.stringify(reply));
          assert.deepEqual(await snapshot(t), before, 'nothing of the send is in the store');
        } finally {
          await heal();
        }
        const credits = (await s.balance()).credits;
        const reply = await send();
        assert.deepEqual([reply.status, reply.recipients], [0, 4], 'the same send succeeds without the fault');
        assert.equal((await s.balance()).credits, credits - 4);
      });
    }

    it("a reseller's transfer failing at its last ledger row", async () => {
      await t.admin(
        'create-account',
        'bank',
        '--password',
        'secret-pw',
        '--reseller',
        '--credits',
        '500',
        '--international',
        '20.00',
      );
      await t.admin('create-account', 'branch', '--password', 'secret-pw', '--parent', 'bank');
      const token = (await t.admin('create-token', 'bank')).at(-1)!;
      const give = () =>
        t.api(
          'updateAmountSub',
          { user: { username: 'bank' }, userDetails: { username: 'branch' }, amount: 40, amount_int: '5.50' },
          { token },
        );
      const before = await snapshot(t);
      const heal = await failInserts(
        t,
        target.name,
        'ledger_entries',
        "NEW.currency = 'international' AND NEW.amount > 0",
      );
      try {
        const reply = await give();
        assert.equal(reply.status, 998, JSON.stringify(reply));
        assert.deepEqual(await snapshot(t), before, 'neither balance nor the ledger moved');
      } finally {
        await heal();
      }
      const reply = await give();
      assert.equal(reply.status, 0, reply.message);
      assert.notDeepEqual(await snapshot(t), before, 'the same transfer moves credits without the fault');
    });
  });
}
