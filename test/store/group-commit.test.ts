// Group commit on the embedded store: concurrent transactions share commits, each resolves only once its
// data is committed (seen from a second connection), a failing one rolls back alone (one writing without a
// savepoint takes its group with it), and a plain write made
// while a group is open is durable when it resolves. Transactions (with group commit or without) hold the
// write lock from their BEGIN, so another process cannot commit between their reads and writes.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, Kysely, sql, type Generated } from 'kysely';
import { runCompiled, type Queryable } from '../../src/store/engine/db.ts';
import {
  groupCommitSqliteDialect,
  groupCommitStats,
  inTransaction,
  writeWithoutSavepoint,
} from '../../src/store/engine/group-commit.ts';

interface Schema {
  items: { id: Generated<number>; name: string };
}

describe('SQLite group commit', () => {
  let dir: string;
  let db: Kysely<Schema>;
  let observer: SqliteDatabase.Database;
  const committed = () =>
    (observer.prepare('select name from items order by id').all() as Array<{ name: string }>).map((r) => r.name);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'yona-gc-'));
    const file = join(dir, 'db.sqlite');
    const sqlite = new SqliteDatabase(file);
    sqlite.pragma('journal_mode = WAL');
    db = new Kysely<Schema>({ dialect: groupCommitSqliteDialect(sqlite) });
    await sql`create table items (id integer primary key, name text not null unique)`.execute(db);
    observer = new SqliteDatabase(file, { readonly: true });
  });
  after(async () => {
    observer.close();
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs concurrent transactions under shared commits, each visible to others once it resolves', async () => {
    const before = { ...groupCommitStats };
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        db
          .transaction()
          .execute(async (trx) => {
            await trx
              .insertInto('items')
              .values({ name: `a${i}` })
              .execute();
            await trx
              .insertInto('items')
              .values({ name: `b${i}` })
              .execute();
          })
          .then(() => assert.ok(committed().includes(`b${i}`), `b${i} is committed when its transaction resolves`)),
      ),
    );
    assert.equal(committed().length, 80);
    const transactions = groupCommitStats.transactions - before.transactions;
    const commits = groupCommitStats.commits - before.commits;
    assert.equal(transactions, 40);
    assert.ok(commits < transactions / 4, `${commits} commits for ${transactions} transactions`);
  });

  it('a failing transaction rolls back alone; the others in its group commit', async () => {
    const results = await Promise.allSettled([
      db.transaction().execute((trx) => trx.insertInto('items').values({ name: 'ok1' }).execute()),
      db.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ name: 'doomed' }).execute();
        await trx.insertInto('items').values({ name: 'a0' }).execute(); // unique violation
      }),
      db.transaction().execute((trx) => trx.insertInto('items').values({ name: 'ok2' }).execute()),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    const names = committed();
    assert.ok(names.includes('ok1') && names.includes('ok2'));
    assert.ok(!names.includes('doomed'));
  });

  it("inTransaction (the API's path) shares commits, resolves after them, rolls back alone and refuses an ended transaction", async () => {
    const before = { ...groupCommitStats };
    const kept: Array<Kysely<Schema>> = [];
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        inTransaction(db, async (trx) => {
          kept.push(trx);
          await trx
            .insertInto('items')
            .values({ name: `it${i}` })
            .execute();
          if (i === 5) await trx.insertInto('items').values({ name: 'a0' }).execute(); // unique violation
        }).then(() => assert.ok(committed().includes(`it${i}`), `it${i} is committed when its transaction resolves`)),
      ),
    );
    assert.deepEqual(
      results.map((r, i) => (i === 5 ? r.status === 'rejected' : r.status === 'fulfilled')),
      Array(12).fill(true),
    );
    const names = committed();
    assert.ok(!names.includes('it5'));
    assert.equal(names.filter((n) => n.startsWith('it')).length, 11);
    assert.equal(groupCommitStats.transactions - before.transactions, 12);
    assert.ok(groupCommitStats.commits - before.commits < 4);
    await assert.rejects(kept[0].selectFrom('items').select('id').execute(), /Transaction is already committed/);
    await assert.rejects(kept[5].selectFrom('items').select('id').execute(), /Transaction is already rolled back/);
  });

  it('a transaction without a savepoint that fails after writing fails the group it joined; those after it commit', async () => {
    const results = await Promise.allSettled(
      ['sp-before', 'sp-unguarded', 'sp-after'].map((name, i) =>
        inTransaction(db, async (trx) => {
          if (i === 1) assert.equal(writeWithoutSavepoint(trx), true);
          await trx.insertInto('items').values({ name }).execute();
          if (i === 1) throw new Error('refused after writing');
        }),
      ),
    );
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'rejected', 'fulfilled'],
    );
    assert.match(
      String((results[0] as PromiseRejectedResult).reason),
      /another transaction of its group commit failed/,
    );
    assert.match(String((results[1] as PromiseRejectedResult).reason), /refused after writing/);
    assert.deepEqual(
      committed().filter((n) => n.startsWith('sp-')),
      ['sp-after'],
    );
  });

  it('a transaction without a savepoint refused before writing leaves its group alone; one that wrote keeps its savepoint', async () => {
    const results = await Promise.allSettled([
      inTransaction(db, (trx) => trx.insertInto('items').values({ name: 'np-1' }).execute()),
      inTransaction(db, async (trx) => {
        assert.equal(writeWithoutSavepoint(trx), true);
        await trx.selectFrom('items').select('id').execute();
        throw new Error('refused before writing');
      }),
      inTransaction(db, async (trx) => {
        await trx.insertInto('items').values({ name: 'np-doomed' }).execute();
        assert.equal(writeWithoutSavepoint(trx), false); // it has written under its savepoint already
        await trx.insertInto('items').values({ name: 'np-1' }).execute(); // unique violation
      }),
      inTransaction(db, (trx) => trx.insertInto('items').values({ name: 'np-2' }).execute()),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(
      committed().filter((n) => n.startsWith('np-')),
      ['np-1', 'np-2'],
    );
    assert.equal(writeWithoutSavepoint(db as unknown as Kysely<Schema>), false); // not a transaction
  });

  it('a transaction without a savepoint whose guarded UPDATE or DELETE changed no row is refused alone', async () => {
    const results = await Promise.allSettled([
      inTransaction(db, (trx) => trx.insertInto('items').values({ name: 'gu-1' }).execute()),
      inTransaction(db, async (trx) => {
        assert.equal(writeWithoutSavepoint(trx), true);
        // A debit guarded in its WHERE that finds too little: it matches no row.
        const updated = await trx.updateTable('items').set({ name: 'gu-never' }).where('name', '=', 'absent').execute();
        assert.equal(Number(updated[0].numUpdatedRows), 0);
        await trx.deleteFrom('items').where('name', '=', 'absent').execute();
        throw new Error('refused: the guard matched nothing');
      }),
      inTransaction(db, (trx) => trx.insertInto('items').values({ name: 'gu-2' }).execute()),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.match(String((results[1] as PromiseRejectedResult).reason), /the guard matched nothing/);
    assert.deepEqual(
      committed().filter((n) => n.startsWith('gu-')),
      ['gu-1', 'gu-2'],
    );
  });

  it('a plain write made while a group is open resolves only once committed; reads see the group', async () => {
    let plainDone = false;
    const tx = db.transaction().execute((trx) => trx.insertInto('items').values({ name: 'in-tx' }).execute());
    const plain = db
      .insertInto('items')
      .values({ name: 'plain' })
      .execute()
      .then(() => {
        plainDone = true;
        assert.ok(committed().includes('plain'));
      });
    await Promise.all([tx, plain]);
    assert.ok(plainDone);
    const rows = await db.selectFrom('items').select('name').where('name', 'in', ['in-tx', 'plain']).execute();
    assert.equal(rows.length, 2);
  });

  it('statements run at once (runCompiled) stay in their transaction; a read outside waits while one holds the connection', async () => {
    const q = (d: unknown) => d as Queryable;
    const insert = (name: string) => CompiledQuery.raw('insert into items (name) values (?)', [name]);
    const results = await Promise.allSettled([
      db.transaction().execute((trx) => runCompiled(q(trx), insert('fast1'))),
      db.transaction().execute(async (trx) => {
        await runCompiled(q(trx), insert('fast-doomed'));
        await runCompiled(q(trx), insert('fast1')); // unique violation
      }),
      db.transaction().execute((trx) => runCompiled(q(trx), insert('fast2'))),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.ok(committed().includes('fast1') && committed().includes('fast2'));
    assert.ok(!committed().includes('fast-doomed'));

    // A transaction that writes, waits, then fails: a read made meanwhile must not see its row.
    let inserted!: () => void;
    const wrote = new Promise<void>((resolve) => (inserted = resolve));
    const doomed = db.transaction().execute(async (trx) => {
      await runCompiled(q(trx), insert('ghost'));
      inserted();
      await new Promise((resolve) => setTimeout(resolve, 30));
      throw new Error('changed its mind');
    });
    await wrote;
    const seen = await runCompiled<{ n: number }>(
      q(db),
      CompiledQuery.raw("select count(*) as n from items where name = 'ghost'", []),
    );
    await assert.rejects(doomed, /changed its mind/);
    assert.equal(seen.rows[0].n, 0);
  });

  it('reads outside a transaction share a read group: another process still writes at once, and a write here after it is not refused', async () => {
    const q = db as unknown as Queryable;
    const other = new SqliteDatabase(join(dir, 'db.sqlite'));
    other.pragma('busy_timeout = 0'); // it must not have to wait at all
    try {
      const count = async () =>
        Number(
          (await runCompiled<{ n: number }>(q, CompiledQuery.raw('select count(*) as n from items', []))).rows[0].n,
        );
      const before = await count(); // opens a read group (a snapshot) for this turn
      other.exec("begin immediate; insert into items (name) values ('other-process'); commit");
      assert.equal(await count(), before, 'the reads of one turn share one snapshot');
      // A transaction in the same turn ends the read group and begins at the latest state (no SQLITE_BUSY_SNAPSHOT).
      await db.transaction().execute(async (trx) => {
        const n = Number(
          (
            await runCompiled<{ n: number }>(
              trx as unknown as Queryable,
              CompiledQuery.raw('select count(*) as n from items', []),
            )
          ).rows[0].n,
        );
        assert.equal(n, before + 1);
        await trx.insertInto('items').values({ name: 'after-other' }).execute();
      });
      // So does a plain write.
      await count();
      await db.insertInto('items').values({ name: 'plain-after-read' }).execute();
      assert.ok(['other-process', 'after-other', 'plain-after-read'].every((n) => committed().includes(n)));
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(await count(), committed().length, 'a later turn reads the latest state');
    } finally {
      other.close();
    }
  });

  it('a read group outlives its turn while a streamed read still walks it', async () => {
    const q = db as unknown as Queryable;
    await runCompiled(q, CompiledQuery.raw('select 1', [])); // opens a read group for this turn
    const names: string[] = [];
    for await (const row of db.selectFrom('items').select('name').orderBy('id').stream()) {
      names.push(row.name);
      await new Promise((resolve) => setImmediate(resolve)); // the turn that opened the group is long over
    }
    assert.deepEqual(names, committed());
    await db.insertInto('items').values({ name: 'after-stream' }).execute();
    assert.ok(committed().includes('after-stream'));
  });

  it('a transaction holds the write lock from its start, with group commit and without', async () => {
    const plain = new Kysely<Schema>({
      dialect: groupCommitSqliteDialect(new SqliteDatabase(join(dir, 'db.sqlite')), false),
    });
    const rival = new SqliteDatabase(join(dir, 'db.sqlite'));
    rival.pragma('busy_timeout = 0');
    try {
      for (const k of [db, plain]) {
        await k.transaction().execute(async (trx) => {
          await trx.selectFrom('items').select('id').limit(1).execute();
          assert.throws(() => rival.exec('begin immediate'), { code: 'SQLITE_BUSY' });
        });
        rival.exec('begin immediate');
        rival.exec('rollback');
      }
    } finally {
      rival.close();
      await plain.destroy();
    }
  });
});
