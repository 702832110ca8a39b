// A connection to the embedded store's file, set up the same way wherever it is opened: the main thread's
// connection (db.ts) and the writer thread's (sqlite-writer-thread.ts).
import SqliteDatabase from 'better-sqlite3';

/** Opens the store's file with its settings (WAL, busy timeout, foreign keys) and a statement cache. */
export function openSqliteConnection(path: string): SqliteDatabase.Database {
  const sqlite = new SqliteDatabase(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  // Group commit runs every transaction as a savepoint, whose page images go to the statement journal: in a
  // temp file that is a write per page (a quarter of a send's CPU here); in memory it is a copy. The journal
  // only holds pre-existing pages a transaction changes, and is emptied at each group commit.
  sqlite.pragma('temp_store = MEMORY');
  // Checkpoint every 10,000 WAL pages (about 40 MB) instead of 1,000: the pages every send touches (table and
  // index tails, the account row) are copied back once per checkpoint, so fewer checkpoints copy fewer pages
  // (bench accept: 130-136 against 143-151 us per send in alternating runs).
  sqlite.pragma('wal_autocheckpoint = 10000');
  return withStatementCache(sqlite);
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
