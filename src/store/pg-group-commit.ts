// Group commit for API sends on PostgreSQL. A send's only write to a shared row is its account's balance, and
// PostgreSQL holds that row's lock from the UPDATE through the COMMIT's WAL flush: one account's sends, one at
// a time, got about 485 a second. Here concurrent sends share a transaction instead: a lane (one pooled
// connection) takes every send queued, runs each in a SAVEPOINT of one transaction (a send that fails rolls
// back to its own savepoint), records the balance changes instead of applying them (ledger.ts), then applies
// the group's net change per account and currency in one guarded UPDATE each (accounts in id order) and
// commits once. The account row is locked only over those UPDATEs and the COMMIT, once per group, so lanes on
// one node and on other nodes run their sends' inserts in parallel.
//
// Recovery is PostgreSQL's own: a group is one transaction, committed or not; no reply leaves before the COMMIT
// succeeded. If a guarded UPDATE finds too little (the sends of other lanes and nodes took the rest), the group
// is rolled back and each of its sends runs again in a transaction of its own, where the usual guard decides
// which get status 4.
import { sql, type ControlledTransaction } from 'kysely';
import type { Database } from './schema/index.ts';
import type { Db, Tx } from './db.ts';
import { applyDeferredBalanceChanges, BalanceChanges, deferBalanceChanges } from './ledger.ts';

/**
 * Sends per group at most: a group's replies wait for its last send, and each send that writes takes a
 * subtransaction id; past 64 in one transaction PostgreSQL's snapshots overflow to pg_subtrans, which slows
 * every other session's reads.
 */
const MAX_GROUP = 60;
// Statements without parameters go over the simple protocol, so two of them make one round trip.
const TAKE = 'savepoint yona_send';
const RELEASE_AND_TAKE = 'release savepoint yona_send; savepoint yona_send';
const ROLLBACK_TO = 'rollback to savepoint yona_send';

// The reads made once for all the sends of a group, by the group's transaction.
const groupReads = new WeakMap<object, Map<string, Promise<unknown>>>();

/**
 * Inside a group's transaction, a lookup made once for all its sends (a token with its account, a verified
 * sender: a busy account's sends repeat them); anywhere else, made each time. So a token deleted while a group
 * runs is refused from the next group on, a few milliseconds later.
 */
export function readOncePerGroup<T>(db: object, key: string, read: () => Promise<T>): Promise<T> {
  const reads = groupReads.get(db);
  if (!reads) return read();
  let pending = reads.get(key) as Promise<T> | undefined;
  if (!pending) reads.set(key, (pending = read()));
  return pending;
}

interface Item<T = unknown> {
  work: (trx: Tx) => Promise<T>;
  resolve(value: T): void;
  reject(err: unknown): void;
}

interface Done {
  item: Item;
  value: unknown;
}

/** Counters for tests and metrics: groups committed, sends in them, groups that ran their sends alone. */
export interface PgGroupStats {
  groups: number;
  sends: number;
  fallbacks: number;
}

export class PgGroupCommit {
  private readonly queue: Item[] = [];
  private running = 0;
  private closed = false;
  private idle: (() => void) | undefined;
  readonly stats: PgGroupStats = { groups: 0, sends: 0, fallbacks: 0 };

  constructor(private readonly db: Db, private readonly lanes: number) {}

  /** Runs `work` in a group's transaction; resolves after that transaction committed. */
  run<T>(work: (trx: Tx) => Promise<T>): Promise<T> {
    if (this.closed) return this.db.transaction().execute(work);
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve, reject } as Item);
      if (this.running < this.lanes) {
        this.running++;
        void this.lane();
      }
    });
  }

  /** New work runs alone from now on; resolves once the groups in flight have finished. */
  close(): Promise<void> {
    this.closed = true;
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => (this.idle = resolve));
  }

  private async lane(): Promise<void> {
    try {
      while (this.queue.length > 0) await this.runGroup(this.queue.splice(0, MAX_GROUP));
    } finally {
      if (--this.running === 0) this.idle?.();
    }
  }

  private async runGroup(items: Item[]): Promise<void> {
    let trx: ControlledTransaction<Database>;
    try {
      trx = await this.db.startTransaction().execute();
    } catch (err) {
      for (const item of items) item.reject(err);
      return;
    }
    groupReads.set(trx, new Map());
    const changes = new BalanceChanges();
    const done: Done[] = [];
    // One savepoint at a time: taken before the first send, kept through a send that failed (rolled back to it),
    // released and taken again, in one round trip, after a send that succeeded.
    let savepoint: 'none' | 'clean' | 'used' = 'none';
    for (const item of items) {
      const mine = new BalanceChanges();
      try {
        if (savepoint !== 'clean') await sql.raw(savepoint === 'none' ? TAKE : RELEASE_AND_TAKE).execute(trx);
      } catch (err) {
        item.reject(err);
        continue;
      }
      deferBalanceChanges(trx, mine);
      try {
        const value = await item.work(trx);
        savepoint = 'used';
        changes.add(mine);
        done.push({ item, value });
      } catch (err) {
        savepoint = await sql.raw(ROLLBACK_TO).execute(trx).then(() => 'clean' as const, () => 'used' as const);
        item.reject(err);
      }
    }
    if (done.length === 0) {
      await trx.rollback().execute().catch(() => {});
      return;
    }
    let applied: boolean;
    try {
      applied = await applyDeferredBalanceChanges(trx, changes);
    } catch {
      applied = false; // a broken connection or a deadlock: the sends run again alone, where the error is theirs
    }
    if (!applied) {
      await trx.rollback().execute().catch(() => {});
      this.stats.fallbacks++;
      for (const { item } of done) await this.db.transaction().execute(item.work).then(item.resolve, item.reject);
      return;
    }
    try {
      await trx.commit().execute();
    } catch (err) {
      for (const { item } of done) item.reject(err);
      return;
    }
    this.stats.groups++;
    this.stats.sends += done.length;
    for (const { item, value } of done) item.resolve(value);
  }
}
