// The receipts worker: receipts from every carrier are queued and applied in batches (one transaction per
// batch; a receipt's deliver_sm is answered only after its batch committed, so a crash makes the SMSC
// redeliver rather than lose it). It also re-matches receipts that came before their submit_sm_resp was
// recorded, and sweeps submitted messages whose receipt window ended (status 2).
import type { Receipt } from '../carriers/types.ts';
import type { Logger } from '../logger.ts';
import type { LocalSignals } from '../signals.ts';
import type { Store } from '../store/engine/db.ts';
import {
  applyReceipts,
  expirePending,
  hasRecentPending,
  rematchPending,
  sweepUnconfirmed,
  type IncomingReceipt,
  type StatusChange,
} from '../store/receipts.ts';
import type { DeliveryOutcomes } from './delivery-outcomes.ts';
import type { DeliverySettings } from './delivery-settings.ts';

/** What the receipts worker needs from the service. */
export interface ReceiptDeps {
  store: Store;
  logger: Logger;
  signals: LocalSignals;
  clock: () => number;
  settings: DeliverySettings;
  /** Counts the outcomes the receipts (and the sweep) give, for /metrics. */
  outcomes?: DeliveryOutcomes;
}

interface Queued {
  receipt: IncomingReceipt;
  resolve(): void;
  reject(err: unknown): void;
}

const MAX_BATCH = 2000;
const SWEEP_BATCH = 1000;
// Only receipts this young are re-matched: a submit_sm_resp cannot be recorded later than a batch takes.
const REMATCH_AGE_MS = 15 * 60_000;
const REMATCH_EVERY_MS = 1000;
const REMATCH_BATCH = 2000;

/** Batches receipts into the store; see the file comment. */
export class ReceiptWorker {
  /** Receipts applied, matched at once or later, and messages whose status changed. */
  readonly stats = { received: 0, batches: 0, pending: 0, rematched: 0, changed: 0, swept: 0 };
  private queue: Queued[] = [];
  private flushing: Promise<void> | undefined;
  private scheduled = false;
  private timers: NodeJS.Timeout[] = [];
  private rematching: Promise<void> | undefined;
  private rematchWanted = false;
  private sweeping: Promise<number> | undefined;
  private stopped = false;

  constructor(private readonly deps: ReceiptDeps) {}

  /** Queues a receipt; resolves once it is committed (a rejection makes the carrier ask for redelivery). */
  add(carrier: string, receipt: Receipt): Promise<void> {
    this.stats.received++;
    return new Promise((resolve, reject) => {
      this.queue.push({
        receipt: {
          carrier,
          carrierMessageId: receipt.carrierMessageId,
          status: receipt.status,
          at: this.deps.clock(),
          ...(receipt.notPlaced ? { refund: true } : {}),
          ...(receipt.durationMs !== undefined ? { durationMs: receipt.durationMs } : {}),
          ...(receipt.carrierError !== undefined ? { carrierError: receipt.carrierError } : {}),
          ...(receipt.sendAgain ? { sendAgain: true } : {}),
        },
        resolve,
        reject,
      });
      if (this.queue.length >= MAX_BATCH) void this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          void this.flush();
        });
      }
    });
  }

  /** Starts the periodic re-match and sweeper. */
  /** Starts taking receipts; with `sweeps` (the receipts role) also re-matches early ones and closes receipt windows. */
  start(options: { sweeps?: boolean } = {}): void {
    this.stopped = false;
    if (options.sweeps === false) return;
    const every = (ms: number, fn: () => Promise<unknown>) => {
      const t = setInterval(
        () => void fn().catch((err) => this.deps.logger.error({ err }, 'receipts: periodic task failed')),
        ms,
      );
      t.unref();
      this.timers.push(t);
    };
    every(REMATCH_EVERY_MS, () => this.rematch());
    every(
      this.deps.settings.sweepMs,
      () => (this.sweeping ??= this.sweep().finally(() => (this.sweeping = undefined))),
    );
  }

  /** Applies what is queued and stops the timers. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    while (this.queue.length > 0 || this.flushing) await this.flush();
    await this.rematching;
    await this.sweeping;
  }

  /** Asks for a re-match of early receipts soon (after the dispatcher recorded a batch). */
  rematchSoon(): void {
    if (this.rematching) {
      this.rematchWanted = true;
      return;
    }
    void this.rematch().catch((err) => this.deps.logger.error({ err }, 'receipts: rematch failed'));
  }

  private flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    if (this.queue.length === 0) return Promise.resolve();
    this.flushing = (async () => {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        try {
          await this.apply(batch.map((q) => q.receipt));
          for (const q of batch) q.resolve();
        } catch (err) {
          this.deps.logger.error({ err, receipts: batch.length }, 'receipts: batch failed; the SMSC will redeliver');
          for (const q of batch) q.reject(err);
        }
      }
    })().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async apply(receipts: IncomingReceipt[]): Promise<void> {
    const { store, clock } = this.deps;
    let changes: StatusChange[] = [];
    const r = await store.db
      .transaction()
      .execute((trx) => applyReceipts(trx, receipts, clock(), (c) => (changes = c)));
    this.deps.outcomes?.count(changes);
    this.stats.batches++;
    this.stats.pending += r.pending;
    this.stats.changed += r.changed;
    if (r.changed > 0) this.deps.signals.notify('push');
    if (r.followUpCalls || r.sentAgain) this.deps.signals.notify('dispatch');
  }

  private rematch(): Promise<void> {
    if (this.rematching) return this.rematching;
    this.rematching = (async () => {
      const { store, clock } = this.deps;
      do {
        this.rematchWanted = false;
        if (!(await hasRecentPending(store.db, clock(), REMATCH_AGE_MS))) continue;
        let changes: StatusChange[] = [];
        const r = await store.db
          .transaction()
          .execute((trx) => rematchPending(trx, clock(), REMATCH_AGE_MS, REMATCH_BATCH, (c) => (changes = c)));
        this.deps.outcomes?.count(changes);
        this.stats.rematched += r.applied;
        this.stats.changed += r.changed;
        if (r.changed > 0) this.deps.signals.notify('push');
        if (r.applied >= REMATCH_BATCH) this.rematchWanted = true;
      } while (this.rematchWanted && !this.stopped);
    })().finally(() => (this.rematching = undefined));
    return this.rematching;
  }

  /** Gives status 2 to every submitted message past its receipt window; drops stale pending receipts. */
  async sweep(): Promise<number> {
    const { store, clock, settings } = this.deps;
    let total = 0;
    for (;;) {
      let changes: StatusChange[] = [];
      const n = await store.db
        .transaction()
        .execute((trx) => sweepUnconfirmed(trx, clock(), SWEEP_BATCH, (c) => (changes = c)));
      this.deps.outcomes?.count(changes);
      total += n;
      if (n < SWEEP_BATCH || this.stopped) break;
    }
    const dropped = await expirePending(store.db, clock(), settings.receiptWindowMs);
    if (this.deps.outcomes) this.deps.outcomes.dropped += dropped;
    this.stats.swept += total;
    if (total > 0) this.deps.signals.notify('push');
    return total;
  }
}
