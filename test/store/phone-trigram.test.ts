// Migration 0029 on PostgreSQL: the pg_trgm GIN index on messages.phone that the console's search by part of a
// number reads sits on the partitioned messages table, so every month's partition has it, a month created
// later included, and the planner can answer a search by part of a number from it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openStore, type Store } from '../../src/store/engine/db.ts';
import { ensureMonthPartitions } from '../../src/store/partitions.ts';
import { storeTargets } from '../helpers/stores.ts';

const postgres = (await storeTargets()).find((t) => t.name === 'postgres');

describe('trigram index on messages.phone (postgres)', { skip: postgres ? false : 'PostgreSQL not reachable' }, () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  before(async () => {
    const created = await postgres!.create();
    cleanup = created.cleanup;
    store = await openStore({ databaseUrl: created.env.DATABASE_URL, dataDir: created.env.YONA_DATA_DIR });
  });
  after(async () => {
    await store?.close();
    await cleanup?.();
  });

  const trigramIndexed = async () => {
    const { rows } = await sql<{ table: string }>`
      select c.relname as table from pg_index x
        join pg_class i on i.oid = x.indexrelid join pg_class c on c.oid = x.indrelid
      where pg_get_indexdef(i.oid) like '%gin_trgm_ops%' and c.relname like 'messages%'`.execute(store.db);
    return new Set(rows.map((r) => r.table));
  };
  const partitions = async () => {
    const { rows } = await sql<{ name: string }>`
      select c.relname as name from pg_inherits h join pg_class c on c.oid = h.inhrelid
      where h.inhparent = 'messages'::regclass`.execute(store.db);
    return rows.map((r) => r.name);
  };

  it('is on the parent and every month, including one created later', async () => {
    const before = await trigramIndexed();
    assert.ok(before.has('messages'), 'on the partitioned table');
    for (const p of await partitions()) assert.ok(before.has(p), `${p} has it`);
    const added = await ensureMonthPartitions(store.db, Date.now() + 400 * 86_400_000, 0);
    assert.ok(
      added.some((name) => name.startsWith('messages_')),
      'a new month was created',
    );
    const after = await trigramIndexed();
    for (const p of await partitions()) assert.ok(after.has(p), `${p} has it`);
  });

  it('can answer a search by part of a number from the index', async () => {
    // An empty table is read whole by choice; with that ruled out, the planner has the trigram index to use.
    const plan = await store.db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      const { rows } = await sql<Record<string, string>>`
        explain (costs off) select id from messages where phone like '%4567%'`.execute(trx);
      return rows.map((r) => Object.values(r)[0]).join('\n');
    });
    assert.match(plan, /Bitmap Index Scan on messages_\w*phone\w*/, plan);
  });
});
