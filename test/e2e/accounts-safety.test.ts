// Tokens and usernames, over HTTP(S) on every store: with password authentication on, a password alone cannot mint
// an API token (511; `current` still reads back), a bearer token can; usernames are unique without regard to case
// (addSub and `yona admin create-account` refuse `TSUB1` beside `tsub1`, also when both arrive at once, each taking
// the name under the same lock); and the
// migration making them so reports existing clashes and changes nothing until the operator renames one.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openStore, type Store } from '../../src/store/engine/db.ts';
import { migrateToLatest } from '../../src/store/engine/migrate.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { newResellerWithSubSender } from '../operations/send-helpers.ts';

const targets = await storeTargets();

/** An account row written straight to the store, as an older version could have. */
function insertBareAccount(db: Store['db'], username: string) {
  return db
    .insertInto('accounts')
    .values({
      username,
      name: username,
      password_hash: 'x',
      credits: 0,
      intl_agorot: 0,
      is_reseller: 0,
      parent_id: null,
      time_zone: 'Asia/Jerusalem',
      ip_check: 0,
      created_at: 1,
    })
    .execute();
}
for (const target of targets) {
  describe(`token minting and usernames (${target.name})`, () => {
    let t: TestService;
    let token: string;
    before(async () => {
      t = await startTestService(target);
      token = (await t.account('minter')).token;
      await t.admin('legacy-password', 'minter', 'on');
    });
    after(() => t.close());

    const tokensOf = async () => (await t.service.store.db.selectFrom('api_tokens').select('id').execute()).length;

    it('refuses getApiToken new with a password alone (511), mints with a bearer token', async () => {
      const before = await tokensOf();
      const byPassword = await t.api(
        'getApiToken',
        { user: { username: 'minter', password: 'secret-pw' }, username: 'minter', action: 'new' },
        { https: true },
      );
      assert.equal(byPassword.status, 511);
      assert.match(
        byPassword.message,
        /a password cannot mint API tokens; mint one in the web console or with a bearer token/,
      );
      assert.equal(await tokensOf(), before);
      const current = await t.api(
        'getApiToken',
        { user: { username: 'minter', password: 'secret-pw' }, username: 'minter', action: 'current' },
        { https: true },
      );
      assert.equal(current.status, 0);
      const byToken = await t.api(
        'getApiToken',
        { user: { username: 'minter' }, username: 'minter', action: 'new' },
        { token },
      );
      assert.equal(byToken.status, 0, byToken.message);
      assert.equal(await tokensOf(), before + 1);
    });

    it('refuses a sub-account name that differs only by case (994), also two at once', async () => {
      const resellerToken = await newResellerWithSubSender(t, 'shop1', 'tsub1');
      const add = (username: string) =>
        t.api(
          'addSub',
          {
            user: { username: 'shop1' },
            userDetails: { name: 'Sub', username, password: 'long-enough-pw', source: 'Sub', amount: '0' },
          },
          { token: resellerToken },
        );
      const clash = await add('TSUB1');
      assert.deepEqual([clash.status, clash.message], [994, 'Username already exists: "TSUB1"']);
      const both = await Promise.all([add('Twin'), add('tWIN')]);
      assert.deepEqual(both.map((r) => r.status).sort(), [0, 994]);
      assert.deepEqual(
        await t.admin('create-account', 'SHOP1', '--password', 'secret-pw').catch((e: Error) => [e.message]),
        ['an account named "SHOP1" already exists (names are compared without regard to case)'],
      );
    });

    it('creates one account when yona admin create-account and addSub ask for one name at once', async () => {
      const resellerToken = await newResellerWithSubSender(t, 'shop2', 'tsub2');
      for (let i = 0; i < 6; i++) {
        const [cli, api] = await Promise.all([
          t.admin('create-account', `Race${i}`, '--password', 'secret-pw').then(
            () => 'created',
            (e: Error) => e.message,
          ),
          t.api(
            'addSub',
            {
              user: { username: 'shop2' },
              userDetails: {
                name: 'Sub',
                username: `rACE${i}`,
                password: 'long-enough-pw',
                source: 'Sub',
                amount: '0',
              },
            },
            { token: resellerToken },
          ),
        ]);
        const outcomes = [cli === 'created' ? 0 : cli, api.status];
        const refusedCli = `an account named "Race${i}" already exists (names are compared without regard to case)`;
        assert.ok(
          (outcomes[0] === 0 && outcomes[1] === 994) || (outcomes[0] === refusedCli && outcomes[1] === 0),
          `one created, the other refused: ${JSON.stringify(outcomes)}`,
        );
        const rows = await t.service.store.db
          .selectFrom('accounts')
          .select('id')
          .where(sql`lower(username)`, '=', `race${i}`)
          .execute();
        assert.equal(rows.length, 1);
      }
    });
  });

  describe(`migration 0022 on existing clashes (${target.name})`, () => {
    it('reports accounts differing only by case and changes nothing; runs once one is renamed', async () => {
      const created = await target.create();
      const store = await openStore({
        databaseUrl: created.env.DATABASE_URL,
        dataDir: created.env.YONA_DATA_DIR,
        migrate: false,
      });
      try {
        await migrateToLatest(store.db, store.dialect, '0019_time_partitions');
        for (const username of ['tsub1', 'TSUB1', 'other']) await insertBareAccount(store.db, username);
        await assert.rejects(migrateToLatest(store.db, store.dialect), (err: Error) => {
          assert.match(err.message, /differ only by case: tsub1 \(id 1\), TSUB1 \(id 2\)\. Nothing was changed\./);
          assert.match(err.message, /UPDATE accounts SET username = /);
          return true;
        });
        await sql`update accounts set username = 'tsub1-b' where id = 2`.execute(store.db);
        await migrateToLatest(store.db, store.dialect);
        await assert.rejects(insertBareAccount(store.db, 'OTHER'), 'the index refuses a case variant');
      } finally {
        await store.close();
        await created.cleanup();
      }
    });
  });
}
