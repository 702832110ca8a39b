// The receipts role's side of carriers' webhooks: events the API nodes stored (store/ingress.ts) are claimed under
// a short lease and processed like an SMPP carrier's: receipts through the receipts worker (marked processed once
// their batch committed; applying one again changes nothing), inbound messages through the inbound handler, which
// marks each processed in its own transaction (so it is stored once). Woken at once by a webhook on this node,
// otherwise found within POLL_MS.
import type { InboundSms, Receipt } from '../carriers/types.ts';
import type { Logger } from '../logger.ts';
import type { LocalSignals } from '../signals.ts';
import type { Store } from '../store/engine/db.ts';
import {
  claimIngressEvents,
  markIngressProcessed,
  pruneIngressEvents,
  type IngressEventRow,
} from '../store/ingress.ts';
import type { InboundHandler } from './inbound.ts';
import type { ReceiptWorker } from './receipts.ts';

/** What the webhook events processor needs. */
export interface IngressEventDeps {
  store: Store;
  logger: Logger;
  signals: LocalSignals;
  clock: () => number;
  receipts: ReceiptWorker;
  inbound: InboundHandler;
}

const POLL_MS = 500;
/** A webhook stored on this node wakes processing this much later, so the events arriving meanwhile go together. */
const GATHER_MS = 20;
const BATCH = 500;
/** A claim is held this long; events of a node that stopped mid-way are taken again after it. */
const LEASE_MS = 30_000;
/** Processed events are kept this long, so a carrier repeating one within it changes nothing. */
const KEEP_MS = 7 * 24 * 3600_000;
const PRUNE_EVERY_MS = 3600_000;

/** Processes stored webhook events; see the file comment. */
export class IngressEvents {
  readonly stats = { receipts: 0, inbound: 0 };
  private timer: NodeJS.Timeout | undefined;
  private gathering: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private lastPrune = 0;

  constructor(private readonly deps: IngressEventDeps) {}

  /** Starts polling and listening for webhooks stored on this node. */
  start(): void {
    this.unsubscribe = this.deps.signals.subscribe('ingress', () => this.wakeSoon());
    this.timer = setInterval(() => this.wake(), POLL_MS);
    this.timer.unref();
    this.wake();
  }

  /** Stops, after the pass under way. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    clearTimeout(this.gathering);
    this.unsubscribe?.();
    await this.running;
  }

  // Wakes after GATHER_MS (one wake for all the webhooks stored meanwhile).
  private wakeSoon(): void {
    if (this.gathering) return;
    this.gathering = setTimeout(() => {
      this.gathering = undefined;
      void this.wake();
    }, GATHER_MS);
  }

  /** Processes what waits now (again at once if a webhook came meanwhile). */
  wake(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          while ((await this.pass()) === BATCH);
        } catch (err) {
          this.deps.logger.error({ err }, 'webhook events: processing failed; they are taken again later');
        }
      } while (this.again);
    })().finally(() => (this.running = undefined));
    return this.running;
  }

  // One claimed batch; returns its size.
  private async pass(): Promise<number> {
    const { store, clock } = this.deps;
    await this.prune(clock());
    const rows = await claimIngressEvents(store.db, clock(), LEASE_MS, BATCH);
    if (rows.length === 0) return 0;
    const receipts = rows.filter((r) => r.kind === 'receipt');
    const unknown = rows.filter((r) => r.kind !== 'receipt' && r.kind !== 'inbound');
    if (unknown.length > 0)
      this.deps.logger.warn({ events: unknown.length }, 'webhook events of an unknown kind: skipped');
    await Promise.all(receipts.map((r) => this.deps.receipts.add(r.carrier, JSON.parse(r.event) as Receipt)));
    await markIngressProcessed(
      store.db,
      [...receipts, ...unknown].map((r) => r.id),
      clock(),
    );
    this.stats.receipts += receipts.length;
    for (const row of rows) if (row.kind === 'inbound') await this.inbound(row);
    return rows.length;
  }

  // One inbound message, marked processed in the transaction that stores it.
  private async inbound(row: IngressEventRow): Promise<void> {
    const sms = JSON.parse(row.event) as InboundSms;
    await this.deps.inbound.handle(
      row.carrier,
      sms,
      async (trx) => (await markIngressProcessed(trx, [row.id], this.deps.clock())) === 1,
    );
    this.stats.inbound++;
  }

  private async prune(now: number): Promise<void> {
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    await pruneIngressEvents(this.deps.store.db, now - KEEP_MS);
  }
}
