// What became of the messages each carrier took, as counters an operator graphs a delivery rate from
// (docs/logs.md "Metrics"): delivered, failed (a receipt saying so, or a refusal at submit that is final),
// expired (the carrier's receipt says so) and unconfirmed (no receipt within the receipt window: status 2); and
// the receipts that match no message: those waiting past UNMATCHED_AFTER_MS (the store, the same on every node),
// and those dropped still unmatched when the receipt window ended.
import client from 'prom-client';
import { DELIVERY, type DeliveryStatus } from '../domain/status.ts';
import type { Queryable } from '../store/engine/db.ts';
import { unmatchedReceipts } from '../store/receipts.ts';

/**
 * A receipt waiting longer than this for its message counts as unmatched: a receipt may come before its submit's
 * answer is recorded, but not by this long (a wrong message id format, a carrier sending another's receipts).
 */
export const UNMATCHED_AFTER_MS = 60_000;
const STORE_READ_MS = 5_000;

export type DeliveryOutcome = 'delivered' | 'failed' | 'expired' | 'unconfirmed';
const OUTCOMES: readonly DeliveryOutcome[] = ['delivered', 'failed', 'expired', 'unconfirmed'];

/** The outcome a final delivery status counts as. */
export function outcomeOf(status: DeliveryStatus): DeliveryOutcome {
  if (status === DELIVERY.DELIVERED || status === DELIVERY.DELIVERED_LEGACY) return 'delivered';
  if (status === DELIVERY.EXPIRED) return 'expired';
  if (status === DELIVERY.TIMEOUT) return 'unconfirmed';
  return 'failed';
}

/** This node's counts since start: outcomes per carrier, and unmatched receipts dropped. */
export class DeliveryOutcomes {
  readonly byCarrier = new Map<string, Record<DeliveryOutcome, number>>();
  dropped = 0;

  /** Messages of `carrier` reached these final statuses (committed). */
  count(changes: Iterable<{ carrier: string | null; status: DeliveryStatus }>): void {
    for (const { carrier, status } of changes) {
      if (carrier === null) continue;
      let counts = this.byCarrier.get(carrier);
      if (!counts) this.byCarrier.set(carrier, (counts = { delivered: 0, failed: 0, expired: 0, unconfirmed: 0 }));
      counts[outcomeOf(status)]++;
    }
  }
}

/** Registers yona_delivery_outcomes_total, yona_receipts_unmatched and its dropped counter once on `registry`. */
export function registerDeliveryOutcomeMetrics(
  registry: client.Registry,
  node: string,
  outcomes: () => DeliveryOutcomes | undefined,
  db: Queryable,
  clock: () => number = Date.now,
): void {
  if (registry.getSingleMetric('yona_delivery_outcomes_total')) return;
  new client.Counter({
    name: 'yona_delivery_outcomes_total',
    help: 'Messages of a carrier that reached a final status on this node, by outcome (delivered, failed, expired, unconfirmed)',
    labelNames: ['node', 'carrier', 'outcome'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [carrier, counts] of outcomes()?.byCarrier ?? [])
        for (const outcome of OUTCOMES) this.inc({ node, carrier, outcome }, counts[outcome]);
    },
  });
  let last: { byCarrier: Map<string, number>; at: number } | undefined;
  let reading: Promise<void> | undefined;
  new client.Gauge({
    name: 'yona_receipts_unmatched',
    help: 'Receipts of a carrier that have matched no message for over a minute (kept until the receipt window ends), over all nodes',
    labelNames: ['node', 'carrier'],
    registers: [registry],
    async collect() {
      if (!last || clock() - last.at >= STORE_READ_MS) {
        reading ??= unmatchedReceipts(db, clock() - UNMATCHED_AFTER_MS)
          .then((byCarrier) => void (last = { byCarrier, at: clock() }))
          .catch(() => {}) // the store did not answer: the last figures stand
          .finally(() => (reading = undefined));
        await reading;
      }
      if (!last) return;
      this.reset();
      for (const [carrier, n] of last.byCarrier) this.set({ node, carrier }, n);
    },
  });
  new client.Counter({
    name: 'yona_receipts_unmatched_dropped_total',
    help: 'Receipts dropped still matching no message at the end of the receipt window',
    labelNames: ['node'],
    registers: [registry],
    collect() {
      this.reset();
      this.inc({ node }, outcomes()?.dropped ?? 0);
    },
  });
}
