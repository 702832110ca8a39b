// Several API processes on one embedded store (YONA_API_PROCESSES): `yona serve` forks N-1 processes that serve
// the API, the console and the public pages on its own listening sockets (the kernel gives each connection to
// one of the processes accepting on them), each with its own SQLite connection and group commit; WAL lets one of
// them write at a time, and while one commits the others' groups grow. Only the first process runs the workers
// (dispatcher, receipts, scheduler, pusher) and holds the data dir's lock. What the processes share goes through
// the store (tokens, balances, limits, idempotency keys, sessions) or over IPC to the first process: the
// wake-ups of its workers after a commit, the console's per-address login attempts and the /metrics figures.
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import client from 'prom-client';
import type { Config } from '../config.ts';
import type { Service } from '../service.ts';
import type { Topic } from '../signals.ts';
import { peerReleasedWriteLock, peerWaitsForWriteLock, writeLockPeers } from '../store/group-commit.ts';

/** Messages between the first process and an API process. */
export type ApiProcessMessage =
  | { type: 'listener'; which: 'http' | 'https' }
  | { type: 'start'; config: Config; index: number }
  | { type: 'ready' }
  | { type: 'failed'; message: string }
  | { type: 'notify'; topics: Topic[] }
  | { type: 'metrics'; id: number; json?: client.MetricObjectWithValues<client.MetricValue<string>>[] }
  | { type: 'scrape'; id: number; text?: string }
  | { type: 'attempt'; id: number; key: string; allowed?: boolean }
  | { type: 'lock-waiting' }
  | { type: 'lock-released' }
  | { type: 'stop' };

/** The API processes forked by the first one. */
export interface ApiProcesses {
  /** Their process ids. */
  pids: number[];
  /** The /metrics text of every process, counters summed. */
  metricsText(): Promise<string>;
  /** Stops them (their requests in flight finish first). */
  close(): Promise<void>;
}

const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;

/** bin/yona.js, from the source (src/cli/) or the build (dist/). */
function yonaBin(): string {
  for (const rel of ['../../bin/yona.js', '../bin/yona.js']) {
    const path = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error('bin/yona.js not found beside the running code');
}

/** Forks `count - 1` API processes beside the running service (none for a count of 1 or less). */
export async function startApiProcesses(service: Service, count: number): Promise<ApiProcesses> {
  const children: ChildProcess[] = [];
  const pendingMetrics = new Map<number, (json: client.MetricObjectWithValues<client.MetricValue<string>>[]) => void>();
  let nextId = 1;
  const started: Promise<void>[] = [];
  const broadcast = (m: ApiProcessMessage, except?: ChildProcess) => {
    for (const c of children) if (c !== except && c.connected) c.send(m);
  };
  writeLockPeers.waiting = () => broadcast({ type: 'lock-waiting' });
  writeLockPeers.released = () => broadcast({ type: 'lock-released' });
  for (let index = 2; index <= count; index++) {
    const child = fork(yonaBin(), ['serve', '--api-worker'], {
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    children.push(child);
    child.on('message', (m: ApiProcessMessage) => {
      if (m.type === 'lock-waiting') {
        peerWaitsForWriteLock();
        broadcast(m, child);
      } else if (m.type === 'lock-released') {
        peerReleasedWriteLock();
        broadcast(m, child);
      } else if (m.type === 'notify') for (const topic of m.topics) service.signals.notify(topic);
      else if (m.type === 'metrics' && m.json) pendingMetrics.get(m.id)?.(m.json);
      else if (m.type === 'attempt' && m.allowed === undefined) {
        const allowed = service.allowLoginAttempt(m.key, service.clock());
        child.send({ type: 'attempt', id: m.id, key: m.key, allowed } satisfies ApiProcessMessage);
      } else if (m.type === 'scrape' && m.text === undefined)
        void metricsText().then((text) => child.connected && child.send({ type: 'scrape', id: m.id, text }));
    });
    started.push(
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('an API process did not start in time')), START_TIMEOUT_MS);
        const done = (err?: Error) => {
          clearTimeout(timer);
          child.off('message', onMessage);
          if (err) reject(err);
          else resolve();
        };
        const onMessage = (m: ApiProcessMessage) => {
          if (m.type === 'ready') done();
          else if (m.type === 'failed') done(new Error(`an API process failed to start: ${m.message}`));
        };
        child.on('message', onMessage);
        child.once('exit', (code) => done(new Error(`an API process exited (${code}) while starting`)));
      }),
    );
    const listeners = service.http.listeners;
    child.send({ type: 'listener', which: 'http' } satisfies ApiProcessMessage, listeners.http);
    child.send({ type: 'listener', which: 'https' } satisfies ApiProcessMessage, listeners.https);
    child.send({ type: 'start', config: service.config, index } satisfies ApiProcessMessage);
  }
  const stop = async () => {
    writeLockPeers.waiting = undefined;
    writeLockPeers.released = undefined;
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const force = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
            child.once('exit', () => {
              clearTimeout(force);
              resolve();
            });
            if (child.connected) child.send({ type: 'stop' } satisfies ApiProcessMessage);
            else child.kill('SIGTERM');
          }),
      ),
    );
  };
  try {
    await Promise.all(started);
  } catch (err) {
    await stop();
    throw err;
  }
  async function metricsText(): Promise<string> {
      const own = await service.metrics.registry.getMetricsAsJSON();
      const others = await Promise.all(
        children
          .filter((c) => c.connected)
          .map(
            (child) =>
              new Promise<client.MetricObjectWithValues<client.MetricValue<string>>[]>((resolve) => {
                const id = nextId++;
                const timer = setTimeout(() => settle([]), 2_000);
                const settle = (json: client.MetricObjectWithValues<client.MetricValue<string>>[]) => {
                  clearTimeout(timer);
                  pendingMetrics.delete(id);
                  resolve(json);
                };
                pendingMetrics.set(id, settle);
                child.send({ type: 'metrics', id } satisfies ApiProcessMessage);
              }),
          ),
      );
    return client.AggregatorRegistry.aggregate([own, ...others]).metrics();
  }
  return { pids: children.map((c) => c.pid!), metricsText, close: stop };
}

/** The first process's side of an API process: its listening sockets and configuration, then its own service. */
export interface ApiProcessStart {
  config: Config;
  index: number;
  listeners: { http: Server; https: Server };
}

/** Waits for the first process to hand over the listening sockets and the configuration. */
export function receiveStart(): Promise<ApiProcessStart> {
  return new Promise((resolve) => {
    const listeners: Partial<ApiProcessStart['listeners']> = {};
    const onMessage = (m: ApiProcessMessage, handle?: unknown) => {
      if (m.type === 'listener') listeners[m.which] = handle as Server;
      else if (m.type === 'start' && listeners.http && listeners.https) {
        process.off('message', onMessage);
        const config = { ...m.config, secretKey: m.config.secretKey ? Buffer.from(m.config.secretKey) : undefined };
        resolve({ config, index: m.index, listeners: { http: listeners.http, https: listeners.https } });
      }
    };
    process.on('message', onMessage);
  });
}
