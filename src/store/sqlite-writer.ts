// The main thread's side of the embedded store's writer thread (sqlite-writer-thread.ts). API sends that share
// commits run here instead of in the group commit: each runs on a view of the store whose reads go to the main
// connection at once and whose hot writes are recorded (send-plan.ts); the sends recorded while the thread was
// busy go to it together, as one transaction, and each send resolves once that transaction committed (or fails
// with its refusal or error). A send that wrote anything else runs again in an ordinary transaction.
//
// The main connection and the thread's take turns at SQLite's write lock: the main thread waits for the batch in
// flight before it writes (GroupCommitSqliteDriver's writer gate), and no batch starts while the main
// connection is held or its write group is open, so neither ever sleeps in SQLite's busy handler for the other.
// Campaign ids come from blocks the thread reserves (AUTOINCREMENT's counter moved past them), so a send knows
// its campaign's id before it is written, and ids stay in the order campaigns were created in this process.
import { Worker } from 'node:worker_threads';
import { Transaction, type CompiledQuery, type DatabaseConnection, type QueryResult } from 'kysely';
import { GroupCommitSqliteAdapter, inTransaction, type GroupCommitSqliteDriver } from './group-commit.ts';
import { attachPlan, SendPlan, statementTexts, type PlannedWrites } from './send-plan.ts';
import type { Database } from './schema/index.ts';
import type { Db, Tx } from './types.ts';

export type WriterRequest =
  | { kind: 'batch'; sends: PlannedWrites[]; texts: string[] }
  | { kind: 'reserve'; count: number }
  | { kind: 'close' };

interface WriterError {
  message: string;
  code?: string;
}

/** How one send of a batch ended: written, refused by its n-th guarded debit, or failed. */
export type WrittenSend = { ok: true } | { short: number } | { error: WriterError };

export type WriterReply =
  | { results: WrittenSend[] }
  | { reserved: { first: number; last: number } }
  | { failed: WriterError };

/** Campaign ids reserved at a time; a restart leaves at most two blocks unused (a gap in the ids). */
const ID_BLOCK = 1024;
/** Sends per batch at most. */
const MAX_BATCH = 1000;

interface Queued {
  plan: SendPlan;
  resolve(result: WrittenSend): void;
  reject(err: Error): void;
}

type Job = { request: WriterRequest; done(reply: WriterReply): void };

function writerError(e: WriterError): Error {
  return Object.assign(new Error(e.message), e.code ? { code: e.code } : {});
}

/** Counters for tests and metrics: batches committed, sends in them, sends run again in a transaction. */
export interface WriterStats {
  batches: number;
  sends: number;
  fallbacks: number;
}

export class SqliteSendWriter {
  readonly stats: WriterStats = { batches: 0, sends: 0, fallbacks: 0 };
  private readonly queue: Queued[] = [];
  private readonly jobs: Job[] = [];
  private inFlight: Job | undefined;
  private reads = new Map<string, Promise<unknown>>();
  private ids = { next: 1, last: 0 };
  private spare: { first: number; last: number } | undefined;
  private reserving = false;
  private scheduled = false;
  /** Statement texts the thread has been told of (send-plan.ts numbers them). */
  private textsSent = 0;
  private closed = false;
  private idleWaiters: Array<() => void> = [];

  private constructor(
    private readonly db: Db,
    private readonly driver: GroupCommitSqliteDriver,
    private readonly worker: Worker,
  ) {
    worker.on('message', (reply: WriterReply) => this.settle(reply));
    worker.on('error', (err) => this.fail(err));
    worker.on('exit', () => this.fail(new Error('the writer thread exited')));
    driver.writerGate = { idle: () => this.idle(), kick: () => this.pump() };
    driver.nextCampaignId = () => this.nextCampaignId();
  }

  /** Starts the thread on the store's file (`db` on it, migrated) and reserves the first campaign ids. */
  static async start(db: Db, path: string): Promise<SqliteSendWriter> {
    const adapter = db.getExecutor().adapter;
    if (!(adapter instanceof GroupCommitSqliteAdapter)) throw new Error('the writer thread needs group commit');
    const worker = new Worker(new URL('./sqlite-writer-thread.mjs', import.meta.url), {
      workerData: { path },
      execArgv: [],
    });
    const writer = new SqliteSendWriter(db, adapter.driver, worker);
    const block = await writer.reserve();
    writer.ids = { next: block.first, last: block.last };
    return writer;
  }

  /** Runs a send: planned and written by the thread where it can be, else in an ordinary transaction. */
  async run<T>(work: (trx: Tx) => Promise<T>): Promise<T> {
    if (this.closed) return inTransaction(this.db, work);
    const plan = new SendPlan(this.reads);
    let value: T;
    try {
      value = await work(this.view(plan));
    } catch (err) {
      if (!plan.notDeferrable) throw err;
      return this.alone(work);
    }
    if (plan.notDeferrable) return this.alone(work);
    if (plan.writes.length === 0) return value;
    const written = await new Promise<WrittenSend>((resolve, reject) => {
      this.queue.push({ plan, resolve, reject });
      this.schedule();
    });
    if ('short' in written) throw plan.refusals[written.short]();
    if ('error' in written) throw writerError(written.error);
    return value;
  }

  /** Sends wait for the batches in flight; new sends run in ordinary transactions. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.inFlight || this.queue.length > 0 || this.jobs.length > 0) {
      this.pump();
      await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    }
    this.driver.writerGate = undefined;
    this.driver.nextCampaignId = undefined;
    this.worker.removeAllListeners('exit');
    this.worker.postMessage({ kind: 'close' } satisfies WriterRequest);
    await new Promise((resolve) => this.worker.once('exit', resolve));
  }

  private alone<T>(work: (trx: Tx) => Promise<T>): Promise<T> {
    this.stats.fallbacks++;
    return inTransaction(this.db, work);
  }

  // A transaction-shaped view whose statements the plan takes: reads run on the main connection (when it is
  // free: a transaction holding it would show them its own writes), writes are refused unless recorded.
  private view(plan: SendPlan): Tx {
    const driver = this.driver;
    const connection: DatabaseConnection = {
      executeQuery: <R>(compiled: CompiledQuery): Promise<QueryResult<R>> =>
        driver.readWhenFree<R>(compiled) ?? plan.refuse(`write: ${compiled.sql.slice(0, 60)}`),
      streamQuery: () => plan.refuse('streamed read'),
    };
    const dialect = driver.dialect!;
    const trx = new Transaction<Database>({
      config: { dialect },
      dialect,
      driver,
      executor: this.db.getExecutor().withConnectionProvider({
        provideConnection: (consumer) => consumer(connection),
      }),
    });
    attachPlan(trx, plan);
    return trx;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // After the promise jobs of this callback: the sends of one turn go together.
    process.nextTick(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  // Starts the next job when the thread is free and the main connection leaves it the write lock: a reservation
  // first, else a batch of the queued sends.
  private pump(): void {
    if (this.inFlight || !this.driver.writerMayStart()) return;
    let job = this.jobs.shift();
    if (!job && this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      this.reads = new Map();
      const texts = statementTexts(this.textsSent);
      this.textsSent += texts.length;
      job = {
        request: { kind: 'batch', sends: batch.map((q) => q.plan.writes), texts },
        done: (reply) => this.finishBatch(batch, reply),
      };
    }
    if (!job) return this.wakeIdle();
    this.inFlight = job;
    this.worker.postMessage(job.request);
  }

  private settle(reply: WriterReply): void {
    const job = this.inFlight;
    this.inFlight = undefined;
    this.pump();
    job?.done(reply);
    if (!this.inFlight) this.wakeIdle();
  }

  private finishBatch(batch: Queued[], reply: WriterReply): void {
    if ('failed' in reply) {
      const err = writerError(reply.failed);
      for (const q of batch) q.reject(err);
      return;
    }
    if (!('results' in reply)) return;
    this.stats.batches++;
    this.stats.sends += batch.length;
    for (let i = 0; i < batch.length; i++) batch[i].resolve(reply.results[i]);
  }

  private fail(err: Error): void {
    this.closed = true;
    this.driver.writerGate = undefined;
    this.driver.nextCampaignId = undefined;
    const job = this.inFlight;
    this.inFlight = undefined;
    job?.done({ failed: { message: err.message } });
    for (const q of this.queue.splice(0)) q.reject(err);
    for (const j of this.jobs.splice(0)) j.done({ failed: { message: err.message } });
    this.wakeIdle();
  }

  /** Resolves once no job is in flight (undefined when none is). */
  private idle(): Promise<void> | undefined {
    if (!this.inFlight) return undefined;
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private wakeIdle(): void {
    for (const wake of this.idleWaiters.splice(0)) wake();
  }

  private reserve(): Promise<{ first: number; last: number }> {
    return new Promise((resolve, reject) => {
      this.jobs.push({
        request: { kind: 'reserve', count: ID_BLOCK },
        done: (reply) => {
          if ('reserved' in reply) resolve(reply.reserved);
          else reject(writerError('failed' in reply ? reply.failed : { message: 'no reservation' }));
        },
      });
      this.pump();
    });
  }

  // The next id of the reserved block; the next block is reserved once half of this one is used. Undefined
  // when both are used up (the insert then takes AUTOINCREMENT's next id).
  private nextCampaignId(): number | undefined {
    if (this.ids.next > this.ids.last && this.spare) {
      this.ids = { next: this.spare.first, last: this.spare.last };
      this.spare = undefined;
    }
    if (this.ids.next > this.ids.last) {
      this.reserveSpare();
      return undefined;
    }
    const id = this.ids.next++;
    if (this.ids.last - id < ID_BLOCK / 2) this.reserveSpare();
    return id;
  }

  private reserveSpare(): void {
    if (this.spare || this.reserving || this.closed) return;
    this.reserving = true;
    this.reserve().then(
      (block) => {
        this.reserving = false;
        this.spare = block;
      },
      () => {
        this.reserving = false;
      },
    );
  }
}
