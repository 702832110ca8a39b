// Group commit for API sends on PostgreSQL. A send's only write to a shared row is its account's balance, and
// PostgreSQL holds that row's lock from the UPDATE through the COMMIT's WAL flush: one account's sends, one at
// a time, got about 485 a second. Here concurrent sends share a transaction instead: a lane (one pooled
// connection) takes every send queued, runs them side by side in one transaction (their blocklist look-ups and
// campaign inserts batched into one statement each: pg-group-batch.ts), records the balance changes instead of
// applying them (ledger.ts), then writes the group's ledger rows and applies its net change per account and
// currency in one guarded UPDATE each (accounts in id order; with one account, one statement) and commits once.
// The account row is locked only over those UPDATEs and the COMMIT, once per group, so lanes on one node and on
// other nodes run their sends' inserts in parallel.
//
// A send refused before it wrote anything (most refusals: a bad phone, an unverified sender, a balance that is
// short already at authentication) leaves the transaction as it was, and the group goes on without it. A send
// that fails after writing, or with an error from the database (which aborts the transaction), ends the group:
// once every send of it has settled, it is rolled back and every send in it runs again in a transaction of its
// own, where its answer is its own.
// No savepoints, so no round trip and no subtransaction per send.
//
// Recovery is PostgreSQL's own: a group is one transaction, committed or not; no reply leaves before the COMMIT
// succeeded. If a guarded UPDATE finds too little (the account's sends in the group need more than it has, or
// the sends of other lanes and nodes took the rest), the group is rolled back, its other accounts' sends run
// again as a group of their own, and each of the short account's sends runs alone, where the usual guard decides
// which get status 4: one account running dry neither fails nor ungroups the others' sends.
import type {
  ControlledTransaction,
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import type { Database } from '../schema/index.ts';
import type { Db, Tx } from '../types.ts';
import { sqliteWriteGroupReads } from './group-commit.ts';
import { applyDeferredBalanceChanges, BalanceChanges, deferBalanceChanges } from '../ledger.ts';
import { GroupBatches, joinGroupBatches } from './pg-group-batch.ts';

/** Sends per group at most: a group's replies wait for its last send. */
const MAX_GROUP = 100;

// Notes whether any statement run through it changed rows (INSERT, UPDATE, DELETE: PostgreSQL reports a count
// for those and not for reads), raw statements included; a raw statement that writes inside a WITH (reported as
// the SELECT that ends it) counts by its text.
class WriteWatch implements KyselyPlugin {
  wrote = false;
  private readonly rawWrites = new WeakSet<object>();
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const node = args.node as RootOperationNode & { sqlFragments?: readonly string[] };
    if (node.kind === 'RawNode' && node.sqlFragments?.some((f) => WRITES.test(f))) this.rawWrites.add(args.queryId);
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (args.result.numAffectedRows !== undefined || this.rawWrites.has(args.queryId)) this.wrote = true;
    return args.result;
  }
}

const WRITES = /\b(insert|update|delete)\b/i;

// An error PostgreSQL (or the connection to it) raised: the transaction can no longer be trusted. The
// operations' own refusals carry no `code`.
function fromDatabase(err: unknown): boolean {
  return typeof err === 'object' && err !== null && 'code' in err;
}

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

/**
 * On the embedded store, makes a send's transaction share the lookups of the write group it runs in (whose
 * transactions share one commit: group-commit.ts), as a PostgreSQL group's sends do. No reply of the group
 * leaves before that commit, so a token deletion acknowledged is seen by every send made after it. Only sends
 * join: the account row read with the token keeps the balance from the group's start, which a send uses only
 * to refuse early (its guarded debit decides).
 */
export function shareWriteGroupReads(trx: object): void {
  const reads = sqliteWriteGroupReads(trx);
  if (reads) groupReads.set(trx, reads);
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

/** How a send of a group ended: with a value, refused (already answered), or spoiling the group. */
interface Outcome extends Done {
  changes: BalanceChanges;
  refused: boolean;
  spoilt: boolean;
}

/**
 * Counters for tests and metrics: groups committed, sends in them, groups rolled back whose sends ran again; batched
 * statements run (pg-group-batch.ts) and the store calls they answered.
 */
export interface PgGroupStats {
  groups: number;
  sends: number;
  fallbacks: number;
  batchStatements: number;
  batchedCalls: number;
}

export class PgGroupCommit {
  private readonly queue: Item[] = [];
  private running = 0;
  private closed = false;
  private idle: (() => void) | undefined;
  readonly stats: PgGroupStats = { groups: 0, sends: 0, fallbacks: 0, batchStatements: 0, batchedCalls: 0 };

  constructor(
    private readonly db: Db,
    private readonly lanes: number,
  ) {}

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
    // The sends run side by side, each through a view of the transaction of its own that notes its writes and
    // records its balance changes; their look-ups and inserts with a batched form share statements.
    const reads = new Map<string, Promise<unknown>>();
    const batches = new GroupBatches(trx);
    const outcomes = await Promise.all(items.map((item) => this.runInGroup(trx, item, reads, batches)));
    this.stats.batchStatements += batches.statements;
    this.stats.batchedCalls += batches.requests;
    if (outcomes.some((o) => o.spoilt)) {
      await this.runAlone(
        trx,
        outcomes.filter((o) => !o.refused).map((o) => o.item),
      );
      return;
    }
    const done = outcomes.filter((o) => !o.refused);
    const changes = new BalanceChanges();
    for (const o of done) changes.add(o.changes);
    if (done.length === 0) {
      await rollBack(trx);
      return;
    }
    let short: number | undefined;
    try {
      short = await applyDeferredBalanceChanges(trx, changes);
    } catch {
      // A broken connection or a deadlock: the sends run again alone, where the error is theirs.
      await this.runAlone(
        trx,
        done.map((d) => d.item),
      );
      return;
    }
    if (short !== undefined) {
      await this.runAgainWithout(trx, done, short);
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

  // One send of a group. A send refused before it wrote anything is answered at once and the group goes on
  // without it; one that failed after writing, or with the database's error, spoils the group.
  private async runInGroup(
    trx: ControlledTransaction<Database>,
    item: Item,
    reads: Map<string, Promise<unknown>>,
    batches: GroupBatches,
  ): Promise<Outcome> {
    const watch = new WriteWatch();
    const view = trx.withPlugin(watch);
    groupReads.set(view, reads);
    const changes = new BalanceChanges();
    deferBalanceChanges(view, changes);
    joinGroupBatches(view, batches, () => (watch.wrote = true));
    try {
      return { item, value: await item.work(view), changes, refused: false, spoilt: false };
    } catch (err) {
      if (watch.wrote || fromDatabase(err)) return { item, value: undefined, changes, refused: false, spoilt: true };
      item.reject(err);
      return { item, value: undefined, changes, refused: true, spoilt: false };
    }
  }

  // Rolls the group back and runs these sends again, each in a transaction of its own.
  private async runAlone(trx: ControlledTransaction<Database>, items: Item[]): Promise<void> {
    await rollBack(trx);
    this.stats.fallbacks++;
    await this.runEachAlone(items);
  }

  private async runEachAlone(items: Item[]): Promise<void> {
    for (const item of items) await this.db.transaction().execute(item.work).then(item.resolve, item.reject);
  }

  // The group's debit of account `short` found too little: the group is rolled back, its other sends run again
  // as a group of their own (one account running dry leaves the others' sends grouped), and that account's
  // sends each alone, where its guard decides which get 4.
  private async runAgainWithout(trx: ControlledTransaction<Database>, done: Outcome[], short: number): Promise<void> {
    await rollBack(trx);
    this.stats.fallbacks++;
    const others = done.filter((o) => !o.changes.touches(short)).map((o) => o.item);
    if (others.length > 0) await this.runGroup(others);
    await this.runEachAlone(done.filter((o) => o.changes.touches(short)).map((o) => o.item));
  }
}

async function rollBack(trx: ControlledTransaction<Database>): Promise<void> {
  await trx
    .rollback()
    .execute()
    .catch(() => {});
}
