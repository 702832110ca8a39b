// Prometheus metrics (served at /metrics on the loopback listener only).
import client from 'prom-client';

export interface Metrics {
  registry: client.Registry;
  apiRequests: client.Counter<'operation' | 'status'>;
  apiDuration: client.Histogram<'operation'>;
  /** Calls authenticated (or refused) by username and password, by outcome. */
  legacyAuth: client.Counter<'result'>;
  /** Counts one API request and its handling time (the labelled series found once per operation and status). */
  recordApiRequest(operation: string, status: number, seconds: number): void;
}

/** A fresh registry with process metrics and the API counters. */
export function createMetrics(): Metrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, prefix: 'yona_' });
  const apiRequests = new client.Counter({
    name: 'yona_api_requests_total',
    help: 'API requests by operation and reply status',
    labelNames: ['operation', 'status'],
    registers: [registry],
  });
  const apiDuration = new client.Histogram({
    name: 'yona_api_request_duration_seconds',
    help: 'API request handling time by operation',
    labelNames: ['operation'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
    registers: [registry],
  });
  const legacyAuth = new client.Counter({
    name: 'yona_legacy_password_requests_total',
    help: 'API calls that authenticated with a username and password instead of a token, by outcome',
    labelNames: ['result'],
    registers: [registry],
  });
  const requestSeries = new Map<string, client.Counter.Internal>();
  const durationSeries = new Map<string, client.Histogram.Internal<'operation'>>();
  const recordApiRequest = (operation: string, status: number, seconds: number): void => {
    const key = `${operation} ${status}`;
    let requests = requestSeries.get(key);
    if (!requests) requestSeries.set(key, (requests = apiRequests.labels(operation, String(status))));
    let duration = durationSeries.get(operation);
    if (!duration) durationSeries.set(operation, (duration = apiDuration.labels(operation)));
    requests.inc();
    duration.observe(seconds);
  };
  return { registry, apiRequests, apiDuration, legacyAuth, recordApiRequest };
}
