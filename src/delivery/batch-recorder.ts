// Records one claimed batch's submit outcomes while the batch is still being submitted. Answers are written in
// small groups (FLUSH_COUNT outcomes, or FLUSH_MS after the first waiting one), so a crash sends again only what
// was on the wire or in the last unwritten group, not the whole batch; and the lease on the batch's unrecorded
// messages is renewed every third of the lease, so a slow carrier never lets another claimer take messages that
// are still being submitted. Writes (groups and renewals) run one at a time, in order.
import type { Store } from '../store/db.ts';
import { recordOutcomes, renewLease, type DispatchOutcome } from '../store/dispatch.ts';

/** Outcomes written together at most. */
const FLUSH_COUNT = 100;
/** How long an answered outcome waits for others before it is written. */
const FLUSH_MS = 10;

export interface BatchRecorderDeps {
  store: Store;
  clock: () => number;
  leaseMs: number;
  receiptWindowMs: number;
  /** A lease value no other claim of this process holds (the claim token as well as the expiry). */
  nextLease: () => number;
  /** Called after each group's write, with its outcomes and whether they were committed. */
  written: (outcomes: DispatchOutcome[], ok: boolean) => void;
  /** Called when a write fails (its messages stay leased and are claimed again when the lease ends). */
  failed: (err: unknown, what: 'record' | 'renew') => void;
}

/** One batch's recorder: `add` each outcome as it arrives, then `finish`. */
export class BatchRecorder {
  private waiting: DispatchOutcome[] = [];
  private readonly unrecorded: Set<number>;
  private writes: Promise<void> = Promise.resolve();
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly renewTimer: NodeJS.Timeout;

  constructor(
    private readonly deps: BatchRecorderDeps,
    messageIds: number[],
    private lease: number,
  ) {
    this.unrecorded = new Set(messageIds);
    this.renewTimer = setInterval(() => this.enqueue(() => this.renew()), Math.max(50, Math.floor(deps.leaseMs / 3)));
  }

  /** Takes one message's outcome; it is written with the next group. */
  add(outcome: DispatchOutcome): void {
    this.waiting.push(outcome);
    if (this.waiting.length >= FLUSH_COUNT) this.flush();
    else this.flushTimer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  /** Writes what is still waiting and resolves once every write of this batch is done. */
  async finish(): Promise<void> {
    clearInterval(this.renewTimer);
    this.flush();
    await this.writes;
  }

  private flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.waiting.length === 0) return;
    const group = this.waiting;
    this.waiting = [];
    this.enqueue(() => this.record(group));
  }

  private enqueue(write: () => Promise<void>): void {
    this.writes = this.writes.then(write);
  }

  private async record(group: DispatchOutcome[]): Promise<void> {
    const { store, clock, receiptWindowMs } = this.deps;
    let ok = false;
    try {
      await store.db
        .transaction()
        .execute((trx) => recordOutcomes(trx, store.dialect, group, this.lease, clock(), receiptWindowMs));
      ok = true;
    } catch (err) {
      this.deps.failed(err, 'record');
    }
    // Written or not, these are no longer renewed: unwritten ones are claimed again when their lease ends.
    for (const o of group) this.unrecorded.delete(o.message.id);
    this.deps.written(group, ok);
  }

  private async renew(): Promise<void> {
    if (this.unrecorded.size === 0) return;
    const next = this.deps.nextLease();
    try {
      const ids = [...this.unrecorded];
      await this.deps.store.db.transaction().execute((trx) => renewLease(trx, ids, this.lease, next));
      this.lease = next;
    } catch (err) {
      this.deps.failed(err, 'renew');
    }
  }
}
