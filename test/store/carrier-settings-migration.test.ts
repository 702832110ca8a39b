// Migration 0020 on both stores: a carrier stored with the columns of SMPP settings keeps every value, now in
// its settings document under the carriers file's keys, and `yona serve` reads it back as the same carrier.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadCarrierSetup } from '../../src/delivery/carrier-setup.ts';
import { openStore, type Store } from '../../src/store/engine/db.ts';
import { migrateToLatest } from '../../src/store/engine/migrate.ts';
import { storeTargets } from '../helpers/stores.ts';

for (const target of await storeTargets()) {
  describe(`carrier settings move into a document (${target.name})`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;

    before(async () => {
      const created = await target.create();
      cleanup = created.cleanup;
      store = await openStore({
        databaseUrl: created.env.DATABASE_URL,
        dataDir: created.env.YONA_DATA_DIR,
        migrate: false,
      });
      await migrateToLatest(store.db, target.name, '0019_time_partitions');
      const old = { created_at: 1, system_type: '', bind_mode: 'transceiver', binds: 1, window_size: 10, max_tps: 0 };
      // One row per statement: SQLite fills a key another row lacks with NULL, not its default.
      const insert = (row: object) => (store.db as any).insertInto('carriers').values(row).execute();
      await insert({
        ...old,
        name: 'partner',
        host: 'smpp.example.net',
        port: 2775,
        system_id: 'yona',
        password: 'pw-1',
        system_type: 'VMA',
        bind_mode: 'tx+rx',
        binds: 3,
        window_size: 40,
        max_tps: 150,
        tls: 1,
        long_messages: 'payload',
        tls_servername: 'smsc.example.net',
        receipt_ids: 'submit-hex',
      });
      await insert({ ...old, name: 'plain', host: 'h', port: 2776, system_id: 's', password: '', tls: 0 });
      await migrateToLatest(store.db, target.name);
    });
    after(async () => {
      await store?.close();
      await cleanup?.();
    });

    it('keeps every setting, read back as the carrier it was', async () => {
      const rows = await store.db
        .selectFrom('carriers')
        .select(['name', 'protocol', 'settings'])
        .orderBy('id')
        .execute();
      assert.deepEqual(
        rows.map((r) => [r.name, r.protocol]),
        [
          ['partner', 'smpp'],
          ['plain', 'smpp'],
        ],
      );
      assert.deepEqual(JSON.parse(rows[0].settings), {
        host: 'smpp.example.net',
        port: 2775,
        systemId: 'yona',
        password: 'pw-1',
        systemType: 'VMA',
        bindMode: 'tx+rx',
        binds: 3,
        windowSize: 40,
        maxSubmitsPerSecond: 150,
        tls: true,
        longMessages: 'payload',
        tlsServername: 'smsc.example.net',
        receiptIds: 'submit-hex',
      });
      const { carriers } = await loadCarrierSetup(store.db, undefined, () => Buffer.alloc(32));
      const [partner, plain] = carriers as Array<Record<string, unknown>>;
      assert.equal(partner.protocol, 'smpp');
      assert.equal(partner.maxSubmitsPerSecond, 150);
      assert.equal(partner.tls, true);
      assert.equal(partner.enquireLinkMs, 30_000);
      assert.equal(plain.systemType, undefined);
      assert.equal(plain.tls, false);
      assert.equal(plain.receiptIds, 'as-is');
      assert.equal(plain.longMessages, 'udh');
    });
  });
}
