// Group commit for the embedded store. A SQLite commit costs far more than the statements of one send
// (each commit writes every touched page to the WAL), so concurrent transactions share one: each runs inside an
// outer transaction, whose COMMIT runs once the callback that opened it has run its work out, after the
// transactions queued by then. A transaction's promise resolves only after that COMMIT (a reply never precedes
// durability) and rejects if it fails. A transaction writes in a SAVEPOINT of its own, opened before its first
// write, so a failing one rolls back alone; one that takes every refusal before writing may write without it
// (writeWithoutSavepoint), and should it fail after writing all the same, its whole group fails with it. A
// statement that changed no row is no write: a guarded debit that finds too little credit refuses its own
// transaction and nothing else.
// Transactions begin IMMEDIATE (the write lock up front): a deferred BEGIN that reads and then writes is refused
// at once (SQLITE_BUSY_SNAPSHOT, no busy_timeout wait) when another process, such as the CLI, committed between.
import type SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  SelectQueryNode,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  SqliteIntrospector,
  SqliteQueryCompiler,
  SingleConnectionProvider,
  Transaction,
  type ConnectionProvider,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
} from 'kysely';
import { FifoPermits } from '../../support/permits.ts';

const TX_SAVEPOINT = 'yona_group_tx';
/** The statements whose count of changed rows tells whether they wrote (GroupConnection.changedNothing). */
const DATA_CHANGES = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode']);
/** How every SQLite transaction begins: holding the write lock, waiting up to busy_timeout for it. */
const BEGIN_WRITE = 'begin immediate';

/** Counters for tuning and metrics: transactions run, the commits they shared, and statements run in them. */
export const groupCommitStats = { transactions: 0, commits: 0, statements: 0 };

/** One acquisition of the single connection; remembers whether its work must wait for the group commit. */
class GroupConnection implements DatabaseConnection {
  inTransaction = false;
  awaitsCommit = false;
  /** Its transaction's savepoint is open: opened before the transaction's first write, not at its start. */
  savepointOpen = false;
  /** Its transaction writes without a savepoint (writeWithoutSavepoint): a failure after a write spoils the group. */
  unguarded = false;
  /** Its transaction has written (an INSERT, UPDATE or DELETE that changed no row is not a write). */
  wrote = false;

  constructor(
    private readonly driver: GroupCommitSqliteDriver,
    private readonly db: SqliteDatabase.Database,
  ) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    return this.run(compiled);
  }

  /** Runs a query on the connection, on the caller's turn. */
  run<R>(compiled: CompiledQuery): QueryResult<R> {
    groupCommitStats.statements++;
    const stmt = this.db.prepare(compiled.sql);
    const wroteBefore = this.wrote;
    // A write in a transaction (an INSERT ... RETURNING too, which reads back) opens its savepoint first.
    const writes = this.inTransaction && !stmt.readonly;
    if (writes) this.beforeWrite();
    if (stmt.reader) {
      const rows = stmt.all(compiled.parameters as unknown[]) as R[];
      if (writes && rows.length === 0) this.changedNothing(compiled, wroteBefore); // RETURNING: a row per row changed
      return { rows };
    }
    // A write outside a transaction ends a read group first (it would turn its snapshot into a write).
    if (!this.inTransaction) this.driver.endReadGroup();
    const { changes, lastInsertRowid } = stmt.run(compiled.parameters as unknown[]);
    if (writes && changes === 0) this.changedNothing(compiled, wroteBefore);
    // A write outside a transaction while a group is open becomes part of it: it is durable at the group's commit.
    if (!this.inTransaction && this.driver.group === 'write') this.awaitsCommit = true;
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }

  /** Before a write of its transaction: its savepoint (unless it writes without one), and a note that it wrote. */
  beforeWrite(): void {
    if (!this.savepointOpen && !this.unguarded) this.driver.openSavepoint(this);
    this.wrote = true;
  }

  /**
   * After an INSERT, UPDATE or DELETE of its transaction that changed no row (a guarded debit that found too
   * little credit, an insert that met its conflict): the store is as it was, so the transaction has written no
   * more than before it, and a refusal it takes now spoils no group (SQLite's triggers run per row, so none
   * ran). Any other statement (DDL, a raw one) counts as a write whatever it reports.
   */
  private changedNothing(compiled: CompiledQuery, wroteBefore: boolean): void {
    if (DATA_CHANGES.has(compiled.query.kind)) this.wrote = wroteBefore;
  }

  async *streamQuery<R>(compiled: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(compiled.query)) throw new Error('Sqlite driver only supports streaming of select queries');
    for (const row of this.db.prepare(compiled.sql).iterate(compiled.parameters as unknown[]))
      yield { rows: [row as R] };
  }
}

/** A Kysely driver over one better-sqlite3 connection that commits concurrent transactions together. */
export class GroupCommitSqliteDriver implements Driver {
  private readonly lock = new FifoPermits(1); // in request order
  private commit: Promise<void> | undefined;
  /** The acquisition that holds the connection now, if any. */
  private holder: GroupConnection | undefined;
  private readGroups = 0;
  /**
   * The outer transaction open now: a write group (BEGIN IMMEDIATE, committed once the callback that opened
   * it has run its work out) or a read group (a deferred BEGIN that only reads: one snapshot and one set of locks for the reads of
   * a turn, ended after that turn or as soon as anything writes; it never blocks another process's writer).
   */
  group: 'none' | 'read' | 'write' = 'none';
  /**
   * Lookups made once for all the transactions of the open write group (readOncePerGroup): dropped when the
   * group commits, and when a transaction rolls back (a read made after its writes would outlive them).
   */
  private writeGroupReads: Map<string, Promise<unknown>> | undefined;
  /** The open write group, which fails its transactions when it is spoilt (spoilWriteGroup). */
  private writeGroup: { spoil(err: Error): void } | undefined;
  private readonly beginRead: SqliteDatabase.Statement;
  // Every transaction runs these: prepared once instead of parsed by exec() each time.
  private readonly savepointTx: SqliteDatabase.Statement;
  private readonly releaseTx: SqliteDatabase.Statement;
  private readonly rollbackTx: SqliteDatabase.Statement;
  private readonly beginGroup: SqliteDatabase.Statement;
  private readonly commitGroup: SqliteDatabase.Statement;

  constructor(private readonly db: SqliteDatabase.Database) {
    this.beginGroup = db.prepare(BEGIN_WRITE);
    this.beginRead = db.prepare('begin');
    this.commitGroup = db.prepare('commit');
    this.savepointTx = db.prepare(`savepoint ${TX_SAVEPOINT}`);
    this.releaseTx = db.prepare(`release ${TX_SAVEPOINT}`);
    this.rollbackTx = db.prepare(`rollback to ${TX_SAVEPOINT}`);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.lock.acquire();
    this.holder = new GroupConnection(this, this.db);
    return this.holder;
  }

  /**
   * Runs a query at once, without Kysely's executor, where that is the same as queueing it: inside a
   * transaction (whose callback is running, so it holds the one connection), or a read while nobody holds
   * the connection. Otherwise undefined, and the caller goes the usual way. Kysely's per-query machinery
   * cost as much as SQLite's own work for our hot statements.
   */
  runNow<R>(compiled: CompiledQuery, inTransaction: boolean): QueryResult<R> | undefined {
    const holder = this.holder;
    if (inTransaction) return holder?.inTransaction ? holder.run(compiled) : undefined;
    if (holder) return undefined;
    const stmt = this.db.prepare(compiled.sql);
    if (!stmt.reader) return undefined;
    groupCommitStats.statements++;
    // Reads share a group: one lock and unlock (system calls) per turn instead of per read.
    if (this.group === 'none') this.openReadGroup();
    return { rows: stmt.all(compiled.parameters as unknown[]) as R[] };
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    this.begin(connection as GroupConnection);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    this.release(connection as GroupConnection);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    this.rollBack(connection as GroupConnection);
  }

  /**
   * Runs `work` in a transaction, as `db.transaction().execute(work)` does (the same connection, savepoint,
   * commit or rollback, and the same wait for the group's COMMIT), in fewer steps: Kysely's builder, runtime
   * driver and connection provider cost a dozen promises and several objects per transaction. The transaction
   * refuses queries once it has ended, as Kysely's does.
   */
  async transaction<T>(db: Kysely<any>, work: (trx: Transaction<any>) => Promise<T>): Promise<T> {
    await this.lock.acquire();
    const connection = new GroupConnection(this, this.db);
    this.holder = connection;
    const provider = new EndingConnectionProvider(new SingleConnectionProvider(connection));
    const trx = new Transaction<any>({
      config: { dialect: this.dialect! },
      dialect: this.dialect!,
      driver: this,
      executor: db.getExecutor().withConnectionProvider(provider),
    });
    try {
      this.begin(connection);
      try {
        const result = await work(trx);
        this.release(connection);
        provider.ended = 'committed';
        return result;
      } catch (error) {
        this.rollBack(connection);
        provider.ended = 'rolled back';
        throw error;
      }
    } finally {
      await this.releaseConnection(connection);
    }
  }

  /** The dialect this driver belongs to (groupCommitSqliteDialect sets it), for the transactions it makes. */
  dialect: Dialect | undefined;

  // A transaction's savepoint is opened before its first write: one that only reads (a refused send, a
  // read-only operation) has nothing to undo, and each savepoint costs a copy of every page the transaction then
  // changes (the statement journal) besides its own statements.
  private begin(c: GroupConnection): void {
    if (this.group !== 'write') this.openWriteGroup();
    groupCommitStats.transactions++;
    c.inTransaction = true;
    c.awaitsCommit = true;
  }

  /** Opens the savepoint of the transaction holding the connection, before its first write. */
  openSavepoint(c: GroupConnection): void {
    this.savepointTx.run();
    groupCommitStats.statements++;
    c.savepointOpen = true;
  }

  private release(c: GroupConnection): void {
    if (c.savepointOpen) {
      this.releaseTx.run();
      groupCommitStats.statements++;
      c.savepointOpen = false;
    }
    c.inTransaction = false;
  }

  private rollBack(c: GroupConnection): void {
    if (!c.inTransaction) return;
    if (c.savepointOpen) {
      this.rollbackTx.run();
      this.releaseTx.run();
      c.savepointOpen = false;
    } else if (c.wrote) {
      this.spoilWriteGroup();
    }
    c.inTransaction = false;
    c.awaitsCommit = false;
    this.writeGroupReads = undefined;
  }

  /**
   * Marks the running transaction as writing without a savepoint (writeWithoutSavepoint); false where it cannot
   * (it has written already, under its savepoint).
   */
  writeUnguarded(): boolean {
    const c = this.holder;
    // A savepoint opens only at a write (one that changed no row may have opened it all the same).
    if (!c?.inTransaction || c.wrote || c.savepointOpen) return false;
    c.unguarded = true;
    return true;
  }

  // A transaction without a savepoint failed after writing: its writes cannot be undone alone, so the whole
  // write group rolls back at once, and every transaction that joined it fails with the group's error (none of
  // them has answered: they wait for its commit). Transactions from now on open a new group.
  private spoilWriteGroup(): void {
    const group = this.writeGroup;
    if (this.db.inTransaction) this.db.exec('rollback');
    this.group = 'none';
    this.writeGroupReads = undefined;
    this.commit = undefined;
    this.writeGroup = undefined;
    group?.spoil(
      new Error('the transaction was rolled back: another transaction of its group commit failed after writing'),
    );
  }

  /** The open write group's lookups, for a transaction running in it; undefined outside one. */
  readsOfWriteGroup(): Map<string, Promise<unknown>> | undefined {
    if (this.group !== 'write' || !this.holder?.inTransaction) return undefined;
    return (this.writeGroupReads ??= new Map());
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    // The transaction's own savepoint goes first, so the nested one ends inside it.
    (connection as GroupConnection).beforeWrite();
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quoteName(name)}`));
    void compile;
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to ${quoteName(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release ${quoteName(name)}`));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const c = connection as GroupConnection;
    const commit = c.awaitsCommit ? this.commit : undefined;
    if (this.holder === c) this.holder = undefined;
    this.lock.release();
    if (commit) await commit;
  }

  async destroy(): Promise<void> {
    await this.commit?.catch(() => {});
    this.endReadGroup();
    this.db.close();
  }

  /** Ends the read group, if one is open (it wrote nothing: its COMMIT only lets go of its snapshot). */
  endReadGroup(): void {
    if (this.group !== 'read') return;
    this.group = 'none';
    this.commitGroup.run();
  }

  // A read group ends after the turn it opened in (unless something ended it sooner and another opened since),
  // or later if the connection is held then (a streamed read may still be walking its snapshot).
  private openReadGroup(): void {
    this.beginRead.run();
    this.group = 'read';
    const opened = ++this.readGroups;
    const end = () => {
      if (this.readGroups !== opened) return;
      if (this.holder) setImmediate(end);
      else this.endReadGroup();
    };
    setImmediate(end);
  }

  // Opens the outer write transaction (ending a read group first). Its COMMIT waits until the callback that
  // opened it has run all the work it set going (a tick comes after the promise jobs it queued), then queues
  // behind every transaction waiting then. The API runs the requests of a turn of the event loop in one such
  // callback (http/api-route.ts), so they share a commit, and its replies leave before the next poll for
  // I/O instead of after it (waiting for the next turn's check phase: bench accept 146-155 against 159-178 us
  // per send, and 1.3-1.5x larger groups, since replies sent sooner bring the next requests sooner).
  private openWriteGroup(): void {
    this.endReadGroup();
    this.beginGroup.run();
    this.group = 'write';
    let spoil: (err: Error) => void = () => {};
    const spoilt = new Promise<never>((_, reject) => (spoil = reject));
    spoilt.catch(() => {});
    const group = { spoil };
    this.writeGroup = group;
    const turn = new Promise<void>((resolve) => process.nextTick(resolve));
    const committed = turn
      .then(() => this.lock.acquire())
      .then(() => {
        // Spoilt meanwhile: rolled back already, and a new group may be open.
        if (this.writeGroup !== group) return this.lock.release();
        try {
          this.commitGroup.run();
          groupCommitStats.commits++;
          groupCommitStats.statements += 2; // the group's BEGIN and COMMIT
        } catch (err) {
          if (this.db.inTransaction) this.db.exec('rollback');
          throw err;
        } finally {
          this.group = 'none';
          this.writeGroupReads = undefined;
          this.commit = undefined;
          this.writeGroup = undefined;
          this.lock.release();
        }
      });
    const settled = Promise.race([committed, spoilt]);
    settled.catch(() => {});
    this.commit = settled;
  }
}

/** A transaction's one connection, refused once the transaction has ended (Kysely's own message). */
class EndingConnectionProvider implements ConnectionProvider {
  ended: 'committed' | 'rolled back' | undefined;

  constructor(private readonly inner: ConnectionProvider) {}

  provideConnection<T>(consumer: (connection: DatabaseConnection) => Promise<T>): Promise<T> {
    this.refuseEnded();
    return this.inner.provideConnection(async (connection) => {
      this.refuseEnded();
      return await consumer(connection);
    });
  }

  private refuseEnded(): void {
    if (this.ended) throw new Error(`Transaction is already ${this.ended}`);
  }
}

function quoteName(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The adapter of a group-commit store: leads hot queries to its driver's runNow. */
export class GroupCommitSqliteAdapter extends SqliteAdapter {
  constructor(readonly driver: GroupCommitSqliteDriver) {
    super();
  }
}

/**
 * The lookups shared by the transactions of the embedded store's open write group, when `db` is a transaction
 * running in one (see readOncePerGroup); undefined otherwise.
 */
export function sqliteWriteGroupReads(db: object): Map<string, Promise<unknown>> | undefined {
  const q = db as Partial<Kysely<any>>;
  if (!q.isTransaction || typeof q.getExecutor !== 'function') return undefined;
  const adapter = q.getExecutor().adapter;
  return adapter instanceof GroupCommitSqliteAdapter ? adapter.driver.readsOfWriteGroup() : undefined;
}

/**
 * Lets the transaction `db` write without a savepoint from now on, on the embedded store with group commit: it
 * saves the savepoint's statements and its copies of every page the transaction changes, and is for a transaction
 * whose refusals all come before its first write. Should it fail after writing anyway, its whole group of
 * transactions rolls back and fails with it (no transaction of the group has answered yet). False where it
 * cannot (another store, or the transaction has written already): the transaction keeps its savepoint.
 */
export function writeWithoutSavepoint(db: Kysely<any>): boolean {
  if (!db.isTransaction) return false;
  const adapter = db.getExecutor().adapter;
  return adapter instanceof GroupCommitSqliteAdapter && adapter.driver.writeUnguarded();
}

/** Kysely's SQLite driver with transactions that begin IMMEDIATE (group commit turned off). */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(BEGIN_WRITE));
  }
}

/** Kysely's SqliteDialect with ImmediateSqliteDriver. */
class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly database: SqliteDatabase.Database) {
    super({ database });
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver({ database: this.database });
  }
}

/** A Kysely dialect for SQLite with group commit (same SQL as Kysely's SqliteDialect); groupCommit false (YONA_SQLITE_GROUP_COMMIT=0) turns it off. */
export function groupCommitSqliteDialect(db: SqliteDatabase.Database, groupCommit = true): Dialect {
  if (!groupCommit) return new ImmediateSqliteDialect(db);
  const driver = new GroupCommitSqliteDriver(db);
  const dialect: Dialect = {
    createAdapter: () => new GroupCommitSqliteAdapter(driver),
    createDriver: () => driver,
    createIntrospector: (k: Kysely<any>) => new SqliteIntrospector(k),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
  driver.dialect = dialect;
  return dialect;
}

/**
 * Runs `work` in a transaction of `db`: on the embedded store with group commit, by its driver's shorter path
 * (GroupCommitSqliteDriver.transaction); otherwise by Kysely's own.
 */
export function inTransaction<DB, T>(db: Kysely<DB>, work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  const adapter = db.getExecutor().adapter;
  return adapter instanceof GroupCommitSqliteAdapter
    ? adapter.driver.transaction(db, work as (trx: Transaction<any>) => Promise<T>)
    : db.transaction().execute(work);
}
