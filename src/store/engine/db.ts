// Opens the store: Kysely over better-sqlite3 (embedded, WAL) or PostgreSQL (DATABASE_URL), and migrates it.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import type { Database } from '../schema/index.ts';
import { migrateToLatest } from './migrate.ts';
import { groupCommitSqliteDialect } from './group-commit.ts';
import { withNamedStatements } from './pg-prepared.ts';
import { PgGroupCommit } from './pg-group-commit.ts';
import { SendPriceCache } from '../price-cache.ts';
import type { Db, Dialect } from '../types.ts';

export type { Db, Dialect, Queryable, Tx } from '../types.ts';
export { inTransaction, writeWithoutSavepoint } from './group-commit.ts';
export { runCompiled, runPrepared, runPreparedWrite, type WriteResult } from './hot-queries.ts';

export interface Store {
  db: Db;
  dialect: Dialect;
  /** Other processes (nodes) may use the store at the same time: PostgreSQL; the embedded store has one process. */
  shared: boolean;
  /** On PostgreSQL (unless YONA_PG_GROUP_LANES is 0): runs API sends in transactions they share (pg-group-commit.ts). */
  sendGroups?: PgGroupCommit;
  /**
   * Where this node's heartbeat and leases are written: on PostgreSQL a connection of their own, so a pool busy
   * with sends and dispatch never holds up a renewal until the lease runs out; on SQLite the store itself.
   */
  control: Db;
  /** The embedded store's prices of sends, kept in memory (price-cache.ts); PostgreSQL's nodes read them. */
  priceCache?: SendPriceCache;
  close(): Promise<void>;
}

export interface StoreOptions {
  databaseUrl?: string;
  dataDir: string;
  /** Run migrations on open (the server and CLI do; default true). */
  migrate?: boolean;
  /** Connections in the PostgreSQL pool (YONA_PG_POOL, default 10). */
  pgPool?: number;
  /** Group commit on SQLite (YONA_SQLITE_GROUP_COMMIT, default on). */
  groupCommit?: boolean;
  /** Lanes of the PostgreSQL group commit for sends (YONA_PG_GROUP_LANES, default 1; 0: none). */
  pgGroupLanes?: number;
}

// The PostgreSQL driver, loaded only when a store on PostgreSQL is opened (the embedded store's commands and
// processes never load it). int8 and numeric come back from pg as strings; our numbers fit in doubles.
async function loadPg(): Promise<typeof pg> {
  const driver = (await import('pg')).default;
  driver.types.setTypeParser(20, (v) => Number(v));
  driver.types.setTypeParser(1700, (v) => Number(v));
  return driver;
}

/** Opens the configured store and brings its schema up to date. */
export async function openStore(options: StoreOptions): Promise<Store> {
  const store = options.databaseUrl
    ? openPostgres(await loadPg(), options.databaseUrl, options.pgPool ?? 10, options.pgGroupLanes ?? 1)
    : openSqlite(options.dataDir, options.groupCommit ?? true);
  if (options.migrate !== false) await migrateToLatest(store.db, store.dialect);
  return store;
}

function openSqlite(dataDir: string, groupCommit: boolean): Store {
  mkdirSync(dataDir, { recursive: true });
  const sqlite = new SqliteDatabase(join(dataDir, 'yona.db'));
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  // Group commit runs a transaction that writes in a savepoint, whose page images go to the statement journal: in a
  // temp file that is a write per page (a quarter of a send's CPU here); in memory it is a copy. The journal
  // only holds pre-existing pages a transaction changes, and is emptied at each group commit.
  sqlite.pragma('temp_store = MEMORY');
  // Checkpoint every 10,000 WAL pages (about 40 MB) instead of 1,000: the pages every send touches (table and
  // index tails, the account row) are copied back once per checkpoint, so fewer checkpoints copy fewer pages
  // (bench accept: 130-136 against 143-151 us per send in alternating runs).
  sqlite.pragma('wal_autocheckpoint = 10000');
  const db = new Kysely<Database>({ dialect: groupCommitSqliteDialect(withStatementCache(sqlite), groupCommit) });
  // Changes when another connection (another process's `yona admin`) commits to the store.
  const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
  const priceCache = new SendPriceCache(() => dataVersion.get() as number);
  return { db, control: db, dialect: 'sqlite', shared: false, priceCache, close: () => db.destroy() };
}

/**
 * Kysely prepares a new statement for every query; preparing cost more than running our hot queries, so
 * statements are cached by SQL text (bounded; the oldest prepared goes first, so a hit costs one lookup).
 * Kysely runs one query at a time per connection, so a cached statement is never used twice at once. The
 * connection's own `prepare` is replaced (a Proxy in front of it cost a closure and a trap on every query).
 */
function withStatementCache(sqlite: SqliteDatabase.Database, limit = 500): SqliteDatabase.Database {
  const cache = new Map<string, SqliteDatabase.Statement>();
  const prepare = sqlite.prepare.bind(sqlite);
  const cachedPrepare = (source: string): SqliteDatabase.Statement => {
    let stmt = cache.get(source);
    if (!stmt) {
      stmt = prepare(source);
      if (cache.size >= limit) cache.delete(cache.keys().next().value!);
      cache.set(source, stmt);
    }
    return stmt;
  };
  sqlite.prepare = cachedPrepare as SqliteDatabase.Database['prepare'];
  return sqlite;
}

function openPostgres(driver: typeof pg, url: string, max: number, groupLanes: number): Store {
  const pool = new driver.Pool({ connectionString: url, max });
  // An idle client that loses its connection (server restart, DROP DATABASE) is discarded by the pool; unhandled, its error would crash the process.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: withNamedStatements(pool) }) });
  // Lanes hold pool connections while they run: at most half the pool, so the workers keep theirs.
  const lanes = Math.min(groupLanes, Math.floor(max / 2));
  const sendGroups = lanes > 0 ? new PgGroupCommit(db, lanes) : undefined;
  const controlPool = new driver.Pool({ connectionString: url, max: 1 });
  controlPool.on('error', () => {});
  const control = new Kysely<Database>({ dialect: new PostgresDialect({ pool: controlPool }) });
  return {
    db,
    control,
    dialect: 'postgres',
    shared: true,
    sendGroups,
    close: async () => {
      await sendGroups?.close();
      await db.destroy();
      await control.destroy();
    },
  };
}
