// The pusher as Prometheus metrics (docs/logs.md "Metrics"): the push backlog and the registrations disabled
// (the store, the same on every node, read at most once per STORE_READ_MS), and this node's failed attempts.
import client from 'prom-client';
import type { Queryable } from '../store/engine/db.ts';
import { pushFigures } from '../store/push-queue.ts';

const STORE_READ_MS = 5_000;

/** Registers yona_push_backlog, yona_push_registrations_disabled and yona_push_failures_total once. */
export function registerPushMetrics(
  registry: client.Registry,
  node: string,
  db: Queryable,
  failures: () => number,
  clock: () => number = Date.now,
): void {
  if (registry.getSingleMetric('yona_push_backlog')) return;
  let last: { backlog: number; disabled: number; at: number } | undefined;
  let reading: Promise<void> | undefined;
  const figures = async () => {
    if (!last || clock() - last.at >= STORE_READ_MS) {
      reading ??= pushFigures(db)
        .then((f) => void (last = { ...f, at: clock() }))
        .catch(() => {}) // the store did not answer: the last figures stand
        .finally(() => (reading = undefined));
      await reading;
    }
    return last;
  };
  new client.Gauge({
    name: 'yona_push_backlog',
    help: 'Push events not yet delivered (waiting, retrying, or held for a disabled registration), over all nodes',
    labelNames: ['node'],
    registers: [registry],
    async collect() {
      const f = await figures();
      if (f) this.set({ node }, f.backlog);
    },
  });
  new client.Gauge({
    name: 'yona_push_registrations_disabled',
    help: 'Push registrations disabled after repeated failures (their events wait until re-registered), over all nodes',
    labelNames: ['node'],
    registers: [registry],
    async collect() {
      const f = await figures();
      if (f) this.set({ node }, f.disabled);
    },
  });
  new client.Counter({
    name: 'yona_push_failures_total',
    help: 'Push requests of this node that did not get HTTP 200 (each logged as push.failed)',
    labelNames: ['node'],
    registers: [registry],
    collect() {
      this.reset();
      this.inc({ node }, failures());
    },
  });
}
