// Records one claimed batch's submit outcomes while the batch is still being submitted, and keeps the batch's
// claim. Answers are written in small groups (FLUSH_COUNT outcomes, or FLUSH_MS after the first waiting one), one
// group at a time, so a crash sends again only what was on the wire or in the last unwritten group, not the whole
// batch. The lease on the messages the batch still holds is renewed every third of the lease on a path of its own,
// never queued behind the groups, so slow outcome writes do not let the lease lapse. A renewal counts the rows it
// moved: a message it did not move is no longer ours (another claimer took it after the lease lapsed), so the
// dispatcher does not submit it (`holds`), and its outcome, if it was already on the wire, is written under the
// lease it had, which matches the row only while no one else claimed it.
import type { Store } from '../store/engine/db.ts';
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
  /** Called when a renewal finds messages that are no longer ours (their lease lapsed and another claimer took them). */
  lost?: (messageIds: number[]) => void;
}

/** One batch's recorder: ask `holds` before submitting a message, `add` each outcome as it arrives, then `finish`. */
export class BatchRecorder {
  private waiting: DispatchOutcome[] = [];
  /** Messages still held under `lease`: claimed, not dropped, and no write of their outcome started. */
  private readonly held: Set<number>;
  /** Messages a renewal found taken by another claimer, with the lease they had under us. */
  private readonly lostLeases = new Map<number, number>();
  private writes: Promise<void> = Promise.resolve();
  private renewing: Promise<void> | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly renewTimer: NodeJS.Timeout;

  constructor(
    private readonly deps: BatchRecorderDeps,
    messageIds: number[],
    private lease: number,
  ) {
    this.held = new Set(messageIds);
    this.renewTimer = setInterval(() => this.renew(), Math.max(50, Math.floor(deps.leaseMs / 3)));
  }

  /**
   * Whether the message may be submitted now: this batch still holds it, with more than a third of the lease
   * left (a renewal that is late leaves the message to whoever claims it next). A message refused here is
   * dropped from the batch and no longer renewed; its row is claimed again when its lease ends.
   */
  holds(messageId: number): boolean {
    if (!this.held.has(messageId)) return false;
    if (this.lease - this.deps.clock() > this.deps.leaseMs / 3) return true;
    this.held.delete(messageId);
    return false;
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
    await this.renewing;
  }

  private flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.waiting.length === 0) return;
    const group = this.waiting;
    this.waiting = [];
    this.writes = this.writes.then(() => this.record(group));
  }

  private async record(group: DispatchOutcome[]): Promise<void> {
    const { store, clock, receiptWindowMs } = this.deps;
    // A renewal in flight moves the lease of the rows it holds: wait for it, then take the group out of the
    // renewals with the lease its rows have now.
    while (this.renewing) await this.renewing;
    const byLease = new Map<number, DispatchOutcome[]>();
    for (const o of group) {
      const id = o.message.id;
      const lease = this.held.delete(id) ? this.lease : (this.lostLeases.get(id) ?? this.lease);
      const same = byLease.get(lease);
      if (same) same.push(o);
      else byLease.set(lease, [o]);
    }
    let ok = false;
    try {
      await store.db.transaction().execute(async (trx) => {
        for (const [lease, outcomes] of byLease) await recordOutcomes(trx, outcomes, lease, clock(), receiptWindowMs);
      });
      ok = true;
    } catch (err) {
      this.deps.failed(err, 'record');
    }
    this.deps.written(group, ok);
  }

  private renew(): void {
    if (this.renewing || this.held.size === 0) return;
    const ids = [...this.held];
    const from = this.lease;
    const next = this.deps.nextLease();
    this.renewing = (async () => {
      try {
        const renewed = new Set(
          await this.deps.store.db.transaction().execute((trx) => renewLease(trx, ids, from, next)),
        );
        this.lease = next;
        const lost = ids.filter((id) => !renewed.has(id));
        for (const id of lost) {
          this.held.delete(id);
          this.lostLeases.set(id, from);
        }
        if (lost.length > 0) this.deps.lost?.(lost);
      } catch (err) {
        this.deps.failed(err, 'renew');
      } finally {
        this.renewing = undefined;
      }
    })();
  }
}
