// The carriers' health as Prometheus metrics (docs/carriers.md "Health"), every figure read at scrape time from
// the health reports of this node's carriers (carrier-health.ts) and, for the queues the store keeps (retries per
// carrier, the due queue), from the store at most once per STORE_READ_MS.
import client from 'prom-client';
import type { Store } from '../store/engine/db.ts';
import { dueQueue, retryQueueByCarrier, type RetryQueue } from '../store/carrier-queue.ts';
import type { CarrierHealth } from './carrier-health.ts';

/** The store's queue figures are read again at most this often. */
const STORE_READ_MS = 5_000;

interface StoreQueues {
  retries: RetryQueue[];
  due: { messages: number; oldestDueAt?: number };
  readAt: number;
}

/** The store's queue figures, read when asked and older than STORE_READ_MS (one read at a time). */
export class StoreQueueFigures {
  private last: StoreQueues | undefined;
  private reading: Promise<StoreQueues | undefined> | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: () => number = Date.now,
  ) {}

  async read(): Promise<StoreQueues | undefined> {
    if (this.last && this.clock() - this.last.readAt < STORE_READ_MS) return this.last;
    this.reading ??= (async () => {
      try {
        const now = this.clock();
        const [retries, due] = [await retryQueueByCarrier(this.store.db), await dueQueue(this.store.db, now)];
        this.last = { retries, due, readAt: now };
      } catch {
        // The store did not answer: the last figures stand (a scrape must not fail for it).
      }
      return this.last;
    })().finally(() => (this.reading = undefined));
    return this.reading;
  }
}

/** Registers the yona_carrier_* and yona_due_queue_* metrics once on `registry`. */
export function registerCarrierMetrics(
  registry: client.Registry,
  node: string,
  reports: () => CarrierHealth[],
  queues: StoreQueueFigures,
  clock: () => number = Date.now,
): void {
  if (registry.getSingleMetric('yona_carrier_binds_up')) return;
  const gauge = (name: string, help: string, value: (r: CarrierHealth) => number | undefined) =>
    new client.Gauge({
      name,
      help,
      labelNames: ['node', 'carrier'],
      registers: [registry],
      collect() {
        this.reset();
        for (const r of reports()) {
          const v = value(r);
          if (v !== undefined) this.set({ node, carrier: r.carrier }, v);
        }
      },
    });
  gauge('yona_carrier_binds_up', 'Binds of a carrier able to submit on this node', (r) => r.bindsUp);
  gauge('yona_carrier_binds_wanted', 'Binds a carrier is configured with, over every node', (r) => r.bindsWanted);
  gauge(
    'yona_carrier_window_in_use',
    'Submits sent to a carrier and not yet answered, on this node',
    (r) => r.windowInUse,
  );
  gauge('yona_carrier_window_size', 'Submits a carrier may have unanswered at once on this node', (r) => r.windowSize);
  gauge('yona_carrier_throttled', '1 while a carrier pushes back (SMPP ESME_RTHROTTLED), else 0', (r) =>
    r.throttled ? 1 : 0,
  );
  gauge('yona_carrier_down', '1 while no bind of a carrier can submit on this node, else 0', (r) => (r.down ? 1 : 0));
  gauge('yona_carrier_last_error_timestamp_seconds', 'When a carrier last failed (seconds since the epoch)', (r) =>
    r.lastError ? r.lastError.at / 1000 : undefined,
  );
  new client.Counter({
    name: 'yona_carrier_submits_total',
    help: 'Submits a carrier answered on this node, by outcome (accepted, refused); rate() gives submits per second',
    labelNames: ['node', 'carrier', 'outcome'],
    registers: [registry],
    collect() {
      this.reset();
      for (const r of reports()) {
        this.inc({ node, carrier: r.carrier, outcome: 'accepted' }, r.submitsAccepted);
        this.inc({ node, carrier: r.carrier, outcome: 'refused' }, r.submitsRefused);
      }
    },
  });
  new client.Counter({
    name: 'yona_carrier_diverted_total',
    help: 'Messages sent to the next carrier of their route because this one was down (not its refusals)',
    labelNames: ['node', 'carrier'],
    registers: [registry],
    collect() {
      this.reset();
      for (const r of reports()) this.inc({ node, carrier: r.carrier }, r.diverted ?? 0);
    },
  });
  new client.Gauge({
    name: 'yona_carrier_queue_length',
    help: 'Messages waiting for a carrier: held by this node for one of its permits (queue="held"), or queued for a retry after failing on it (queue="retry", the store, the same on every node)',
    labelNames: ['node', 'carrier', 'queue'],
    registers: [registry],
    async collect() {
      const retries = (await queues.read())?.retries ?? [];
      this.reset();
      for (const r of reports()) {
        this.set({ node, carrier: r.carrier, queue: 'held' }, r.held);
        this.set(
          { node, carrier: r.carrier, queue: 'retry' },
          retries.find((q) => q.carrier === r.carrier)?.messages ?? 0,
        );
      }
    },
  });
  new client.Gauge({
    name: 'yona_carrier_oldest_message_age_seconds',
    help: 'Seconds since the oldest message waiting for a carrier (held here or queued for its retry) was accepted; 0 when none waits',
    labelNames: ['node', 'carrier'],
    registers: [registry],
    async collect() {
      const retries = (await queues.read())?.retries ?? [];
      const now = clock();
      this.reset();
      for (const r of reports()) {
        const retry = retries.find((q) => q.carrier === r.carrier)?.oldestAcceptedAt;
        const oldest = Math.min(r.heldOldestAcceptedAt ?? Infinity, retry ?? Infinity);
        this.set({ node, carrier: r.carrier }, Number.isFinite(oldest) ? Math.max(0, now - oldest) / 1000 : 0);
      }
    },
  });
  new client.Gauge({
    name: 'yona_due_queue_length',
    help: 'Messages due now and not yet claimed by a dispatcher, over all nodes',
    labelNames: ['node'],
    registers: [registry],
    async collect() {
      const due = (await queues.read())?.due;
      if (due) this.set({ node }, due.messages);
    },
  });
  new client.Gauge({
    name: 'yona_due_queue_oldest_age_seconds',
    help: 'Seconds the message due longest has been due (0 when none is due), over all nodes',
    labelNames: ['node'],
    registers: [registry],
    async collect() {
      const due = (await queues.read())?.due;
      if (due) this.set({ node }, due.oldestDueAt === undefined ? 0 : Math.max(0, clock() - due.oldestDueAt) / 1000);
    },
  });
}
