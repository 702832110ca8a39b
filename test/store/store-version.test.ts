// Versions: `yona --version` and /healthz name this build's version (package.json's); the store records the
// version that last migrated it, moves it forward, never back, and an older Yona refuses a store a newer one
// migrated (a higher recorded version, or migrations it does not know) with one clear line, changing nothing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { request } from 'undici';
import { VERSION } from '../../src/domain/version.ts';
import { openStore, type Store } from '../../src/store/engine/db.ts';
import { storeVersion } from '../../src/store/engine/store-version.ts';
import { startTestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';

const root = join(import.meta.dirname, '../..');
const bin = join(root, 'bin/yona.js');
const packageVersion = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version as string;

describe('versions', () => {
  it('yona --version prints the package version', () => {
    const run = spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, `yona ${packageVersion}\n`);
    assert.equal(VERSION, packageVersion);
  });
});

for (const target of await storeTargets()) {
  describe(`the store's version (${target.name})`, () => {
    let created: Awaited<ReturnType<typeof target.create>>;
    const open = (): Promise<Store> =>
      openStore({ dataDir: created.env.YONA_DATA_DIR, databaseUrl: created.env.DATABASE_URL });
    const yona = (...args: string[]) =>
      spawnSync(process.execPath, [bin, ...args], {
        encoding: 'utf8',
        env: { ...process.env, HOME: created.env.YONA_DATA_DIR, DATABASE_URL: '', ...created.env },
      });
    before(async () => {
      created = await target.create();
    });
    after(() => created.cleanup());

    it('records the version that migrated it, and /healthz names the running version', async () => {
      const store = await open();
      assert.equal(await storeVersion(store.db), packageVersion);
      await store.close();
      const t = await startTestService({ name: target.name, create: async () => created }, {});
      const health = (await (await request(`${t.httpUrl}/healthz`)).body.json()) as Record<string, unknown>;
      assert.equal(health.version, packageVersion);
      await t.service.close();
    });

    it('moves an older record forward', async () => {
      const store = await open();
      await (store.db as Kysely<any>).updateTable('yona_store_version').set({ version: '0.0.1' }).execute();
      await store.close();
      const again = await open();
      assert.equal(await storeVersion(again.db), packageVersion);
      await again.close();
    });

    it('refuses a store a newer Yona migrated, naming both versions, and changes nothing', async () => {
      const store = await open();
      await (store.db as Kysely<any>).updateTable('yona_store_version').set({ version: '99.1.0' }).execute();
      await store.close();
      const run = yona('admin', 'create-account', 'alice', '--password', 's3cret-pw');
      assert.equal(run.status, 1, run.stdout);
      assert.match(
        run.stderr,
        new RegExp(`last migrated by Yona 99\\.1\\.0, newer than this Yona ${packageVersion.replace(/\./g, '\\.')}`),
      );
      assert.match(run.stderr, /docs\/upgrade\.md/);
      assert.equal(
        run.stderr
          .trim()
          .split('\n')
          .filter((l) => l.startsWith('yona: ') && !l.startsWith('yona: store ')).length,
        1,
      );
      const check = await openStore({
        dataDir: created.env.YONA_DATA_DIR,
        databaseUrl: created.env.DATABASE_URL,
        migrate: false,
      });
      assert.equal(await storeVersion(check.db), '99.1.0', 'the record is not moved back');
      const accounts = await check.db.selectFrom('accounts').select('username').execute();
      assert.deepEqual(accounts, [], 'nothing was written');
      await (check.db as Kysely<any>).updateTable('yona_store_version').set({ version: packageVersion }).execute();
      await check.close();
    });

    it('refuses a store with a migration this Yona does not know', async () => {
      const store = await open();
      await (store.db as Kysely<any>)
        .insertInto('yona_migrations')
        .values({ name: '9999_from_the_future', timestamp: new Date().toISOString() })
        .execute();
      await store.close();
      await assert.rejects(open(), /migrations this Yona .* does not know \(9999_from_the_future\)/);
      const run = yona('serve');
      assert.notEqual(run.status, 0);
      assert.match(run.stderr, /9999_from_the_future/);
    });
  });
}
