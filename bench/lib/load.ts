// A bounded HTTP load from a second process (autocannon in a child), so the figures include a real client.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface LoadOptions {
  url: string;
  /** POST with this body; GET without one. */
  body?: string;
  headers?: Record<string, string>;
  connections: number;
  durationSeconds: number;
  /** Requests per connection in flight (1 = no pipelining). */
  pipelining?: number;
}

export interface LoadResult {
  requests_per_s: number;
  p50_ms: number;
  p99_ms: number;
  total: number;
  non_2xx: number;
  errors: number;
  client_cpu_us_per_request: number;
}

/** Runs autocannon in a child process for a bounded time and returns its figures. */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  const child = fork(fileURLToPath(new URL('./load-child.mjs', import.meta.url)), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve(m as LoadResult));
    child.once('error', reject);
    child.once('exit', (code) => (code ? reject(new Error(`load generator exited ${code}`)) : undefined));
    child.send(options);
  });
}
