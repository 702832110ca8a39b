// The pusher's Prometheus metrics (docs/monitoring.md): registrations it disabled after repeated failures.
import client from 'prom-client';

/** yona_push_registrations_disabled_total on `registry` (registered once, its series for `node` shown from 0). */
export function pushDisabledCounter(registry: client.Registry, node: string): { inc(): void } {
  const counter =
    (registry.getSingleMetric('yona_push_registrations_disabled_total') as client.Counter<'node'> | undefined) ??
    new client.Counter({
      name: 'yona_push_registrations_disabled_total',
      help: 'Push registrations this node disabled after repeated failed deliveries (the push.disabled log line)',
      labelNames: ['node'],
      registers: [registry],
    });
  const series = counter.labels(node);
  series.inc(0);
  return series;
}
