// Migration 0028 on both stores: nodes.carrier_health, where each node writes its carriers' health with its
// heartbeat. It ships after 0029, so a store that already applied 0029 applies it late; a beat without a snapshot
// leaves the last one in place and one with a snapshot replaces it.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openStore, type Store } from '../../src/store/engine/db.ts';
import { migrateToLatest } from '../../src/store/engine/migrate.ts';
import { beat, liveNodes } from '../../src/store/nodes.ts';
import { storeTargets } from '../helpers/stores.ts';

for (const target of await storeTargets()) {
  describe(`nodes.carrier_health (${target.name})`, () => {
    let store: Store | undefined;
    let cleanup: (() => Promise<void>) | undefined;
    after(async () => {
      await store?.close();
      await cleanup?.();
    });

    it('is added to a store that already applied a later migration, and keeps the last snapshot written', async () => {
      const created = await target.create();
      cleanup = created.cleanup;
      const options = { databaseUrl: created.env.DATABASE_URL, dataDir: created.env.YONA_DATA_DIR };
      store = await openStore(options);
      // As a store migrated by a build that had 0029 but not 0028.
      await sql`delete from yona_migrations where name = '0028_node_carrier_health'`.execute(store.db);
      await sql`alter table nodes drop column carrier_health`.execute(store.db);
      await migrateToLatest(store.db, target.name);

      const node = { name: 'n1', roles: ['dispatcher'], host: 'h', pid: 1, startedAt: 1 };
      await beat(store.db, node, 1000, 60_000);
      assert.equal((await liveNodes(store.db, 2000))[0].carrierHealth, null);
      await beat(store.db, { ...node, carrierHealth: '{"at":3000,"carriers":[]}' }, 3000, 60_000);
      await beat(store.db, node, 4000, 60_000);
      const [read] = await liveNodes(store.db, 5000);
      assert.equal(read.carrierHealth, '{"at":3000,"carriers":[]}');
      assert.equal(read.heartbeatAt, 4000);
    });
  });
}
