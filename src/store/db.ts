// Opens the store: Kysely over better-sqlite3 (embedded, WAL) or PostgreSQL (DATABASE_URL), and migrates it.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import type { Database } from './schema/index.ts';
import { migrateToLatest } from './migrations/index.ts';
import { groupCommitSqliteDialect } from './group-commit.ts';
import { openSqliteConnection } from './sqlite-connection.ts';
import { withNamedStatements } from './pg-prepared.ts';
import { PgGroupCommit } from './pg-group-commit.ts';
import { SqliteSendWriter } from './sqlite-writer.ts';
import type { Db, Dialect } from './types.ts';

export type { Db, Dialect, Queryable, Tx } from './types.ts';
export { inTransaction } from './group-commit.ts';
export { runCompiled, runPrepared, runPreparedWrite, type WriteResult } from './hot-queries.ts';

export interface Store {
  db: Db;
  dialect: Dialect;
  /**
   * Runs API sends in transactions they share: on PostgreSQL (unless YONA_PG_GROUP_LANES is 0) pg-group-commit.ts;
   * on SQLite in a service with the writer thread (YONA_SQLITE_WRITER_THREAD), sqlite-writer.ts.
   */
  sendGroups?: PgGroupCommit | SqliteSendWriter;
  /**
   * Where this node's heartbeat and leases are written: on PostgreSQL a connection of their own, so a pool busy
   * with sends and dispatch never holds up a renewal until the lease runs out; on SQLite the store itself.
   */
  control: Db;
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
  /** On SQLite with group commit, API sends written by a thread of their own (YONA_SQLITE_WRITER_THREAD; default off here, on in the service). */
  sqliteWriterThread?: boolean;
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
  if (store.dialect === 'sqlite' && options.sqliteWriterThread && (options.groupCommit ?? true)) {
    const writer = await SqliteSendWriter.start(store.db, sqlitePath(options.dataDir));
    const closeDb = store.close;
    return {
      ...store,
      sendGroups: writer,
      close: async () => {
        await writer.close();
        await closeDb();
      },
    };
  }
  return store;
}

const sqlitePath = (dataDir: string) => join(dataDir, 'yona.db');

function openSqlite(dataDir: string, groupCommit: boolean): Store {
  mkdirSync(dataDir, { recursive: true });
  const sqlite = openSqliteConnection(sqlitePath(dataDir));
  const db = new Kysely<Database>({ dialect: groupCommitSqliteDialect(sqlite, groupCommit) });
  return { db, control: db, dialect: 'sqlite', close: () => db.destroy() };
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
    sendGroups,
    close: async () => {
      await sendGroups?.close();
      await db.destroy();
      await control.destroy();
    },
  };
}
