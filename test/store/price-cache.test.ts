// The embedded store's prices of sends kept in memory (price-cache.ts): a send is priced with what the store holds
// now, whoever changed it: a price set in this process, a commit by another connection (another process's
// `yona admin price`), and, for a change nothing announced (a price write rolled back after a send read it), the
// store read again a second later.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { runAdminCommand } from '../../src/cli/admin.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore, type Store } from '../../src/store/engine/db.ts';
import { SendPriceCache } from '../../src/store/price-cache.ts';
import { setAccountPrices, setIntlRate } from '../../src/store/prices.ts';

describe('prices of sends kept in memory (sqlite)', () => {
  let dir: string;
  let store: Store;
  let other: SqliteDatabase.Database;
  let accountId: number;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'yona-price-cache-'));
    store = await openStore({ dataDir: dir });
    const config = loadConfig({ YONA_DATA_DIR: dir });
    await runAdminCommand(store, config, ['create-account', 'priced', '--password', 'secret-pw'], () => {});
    const row = await store.db.selectFrom('accounts').select('id').where('username', '=', 'priced').executeTakeFirst();
    accountId = Number(row?.id);
    other = new SqliteDatabase(join(dir, 'yona.db'));
  });
  after(async () => {
    other.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sees a price set in this process at the next send', async () => {
    const cache = store.priceCache!;
    assert.deepEqual((await cache.read(store.db, accountId)).own, { domesticCredits: null, intlAgorot: null });
    await setAccountPrices(store.db, accountId, { domesticCredits: 3, intlAgorot: null }, Date.now());
    assert.equal((await cache.read(store.db, accountId)).own.domesticCredits, 3);
    await setIntlRate(store.db, '44', 25, Date.now());
    assert.equal((await cache.read(store.db, accountId)).card.countries.get('44'), 25);
  });

  it("sees another connection's commit at the next send", async () => {
    const cache = store.priceCache!;
    assert.equal((await cache.read(store.db, accountId)).own.domesticCredits, 3);
    other.prepare('update account_prices set domestic_credits_per_part = 5 where account_id = ?').run(accountId);
    other.prepare("insert into intl_rates (country, agorot_per_part, updated_at) values ('33', 40, 0)").run();
    const read = await cache.read(store.db, accountId);
    assert.equal(read.own.domesticCredits, 5);
    assert.equal(read.card.countries.get('33'), 40);
  });

  it('reads a change nothing announced again after a second, and not before', async () => {
    let now = 1_000_000;
    const cache = new SendPriceCache(
      () => 1,
      () => now,
    );
    assert.equal((await cache.read(store.db, accountId)).own.domesticCredits, 5);
    // Written on this connection without setAccountPrices: as a write whose transaction rolled back looks.
    await store.db
      .updateTable('account_prices')
      .set({ domestic_credits_per_part: 7 })
      .where('account_id', '=', accountId)
      .execute();
    now += 999;
    assert.equal((await cache.read(store.db, accountId)).own.domesticCredits, 5);
    now += 1;
    assert.equal((await cache.read(store.db, accountId)).own.domesticCredits, 7);
  });
});
