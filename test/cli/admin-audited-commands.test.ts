// `yona admin add-number`, `add-filtered` and `push allow-private` on every store, each as its own process: they
// run the audited operations the console would (addAccountNumber, addFilteredPhones, setPushAllowPrivate), so each
// change writes one audit row naming the CLI's operator, from `local`, with the state before and after; a refused
// change (a number another account owns, a list with a word that is no phone) exits 2 and writes no row.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cliOperatorName } from '../../src/cli/operator-app.ts';
import { openStore, type Store } from '../../src/store/engine/db.ts';
import { auditPage, type AuditEntry } from '../../src/store/audit.ts';
import { runCli } from '../helpers/serve-process.ts';
import { storeTargets } from '../helpers/stores.ts';

for (const target of await storeTargets()) {
  describe(`yona admin add-number, add-filtered and push allow-private are audited (${target.name})`, () => {
    let env: NodeJS.ProcessEnv;
    let cleanup: () => Promise<void>;
    let store: Store;
    const admin = (...args: string[]) => runCli(env, ['admin', ...args]);
    const ok = async (...args: string[]) => {
      const run = await admin(...args);
      assert.equal(run.status, 0, `yona admin ${args.join(' ')}: ${run.stderr}`);
      return run.stdout.trim();
    };
    const rows = async (action: string): Promise<AuditEntry[]> => auditPage(store.db, { action, limit: 50 });
    const state = (text: string | null) => (text === null ? null : JSON.parse(text));

    before(async () => {
      const created = await target.create();
      cleanup = created.cleanup;
      env = { ...process.env, DATABASE_URL: '', ...created.env };
      await ok('create-account', 'alice', '--password', 'alice-pw-123', '--new-store');
      await ok('create-account', 'bob', '--password', 'bob-pw-1234');
      store = await openStore({ databaseUrl: created.env.DATABASE_URL ?? '', dataDir: created.env.YONA_DATA_DIR });
    });
    after(async () => {
      await store?.close();
      await cleanup?.();
    });

    it('add-number: one row with the number unowned before and the account after; a taken number is refused', async () => {
      assert.equal(await ok('add-number', 'alice', '0559990000'), 'inbound SMS to 972559990000 go to alice');
      const [row] = await rows('addAccountNumber');
      assert.equal(row.operator, cliOperatorName());
      assert.equal(row.via, 'cli');
      assert.equal(row.address, 'local');
      assert.equal(row.subject, 'alice number 972559990000');
      assert.equal(state(row.before), null);
      assert.deepEqual(state(row.after), { account: 'alice' });
      const taken = await admin('add-number', 'bob', '+972559990000');
      assert.equal(taken.status, 2, taken.stdout + taken.stderr);
      assert.match(taken.stderr, /number 972559990000 already belongs to another account/);
      const bad = await admin('add-number', 'bob', 'x1');
      assert.equal(bad.status, 2);
      assert.match(bad.stderr, /NUMBER must be a phone number or short code, got "x1"/);
      assert.equal((await rows('addAccountNumber')).length, 1);
    });

    it('add-filtered: one row with how many of the phones the registry held before and after', async () => {
      assert.match(await ok('add-filtered', '0521234567', '+972521234568'), /^2 filtered phones added \(0 already/);
      const [row] = await rows('addFilteredPhones');
      assert.equal(row.operator, cliOperatorName());
      assert.equal(row.via, 'cli');
      assert.equal(row.subject, 'filtered phones (2)');
      assert.deepEqual(state(row.before), { filtered: 0, phones: [] });
      assert.deepEqual(state(row.after), { filtered: 2, phones: ['972521234567', '972521234568'] });
      assert.match(
        await ok('add-filtered', '0521234567', '0521234569'),
        /^1 filtered phones added \(1 already known\)/,
      );
      const [again] = await rows('addFilteredPhones');
      assert.deepEqual(state(again.before), { filtered: 1, phones: ['972521234567'] });
      assert.deepEqual(state(again.after), { filtered: 2, phones: ['972521234567', '972521234569'] });
      const bad = await admin('add-filtered', '0521234570', 'not-a-phone');
      assert.equal(bad.status, 2, bad.stdout + bad.stderr);
      assert.match(bad.stderr, /not a phone number: "not-a-phone"/);
      assert.equal((await rows('addFilteredPhones')).length, 2);
      const none = await store.db
        .selectFrom('filtered_phones')
        .select('phone')
        .where('phone', '=', '972521234570')
        .execute();
      assert.deepEqual(none, [], 'a refused list adds none of its phones');
    });

    it("push allow-private: one row per change with the account's setting before and after", async () => {
      await ok('push', 'allow-private', 'alice', 'on');
      const [on] = await rows('setPushAllowPrivate');
      assert.equal(on.subject, 'alice');
      assert.equal(on.via, 'cli');
      assert.equal(state(on.before).push_allow_private, false);
      assert.equal(state(on.after).push_allow_private, true);
      await ok('push', 'allow-private', 'alice', 'off');
      const [off] = await rows('setPushAllowPrivate');
      assert.equal(state(off.before).push_allow_private, true);
      assert.equal(state(off.after).push_allow_private, false);
      const bad = await admin('push', 'allow-private', 'alice', 'maybe');
      assert.equal(bad.status, 2);
      assert.equal((await rows('setPushAllowPrivate')).length, 2);
    });
  });
}
