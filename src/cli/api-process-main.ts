// An API process of `yona serve` (api-processes.ts): started by the first process with `serve --api-worker`, it
// serves the API, the console and the public pages on the first process's listening sockets, with its own
// connection to the embedded store, and tells the first process's workers of what it committed.
import { withNodeName } from '../cluster/node-identity.ts';
import { publicPagesComponent } from '../http/public-pages.ts';
import { createLogger } from '../logger.ts';
import { startService } from '../service.ts';
import { LocalSignals, type Topic } from '../signals.ts';
import { peerReleasedWriteLock, peerWaitsForWriteLock, writeLockPeers } from '../store/group-commit.ts';
import { receiveStart, type ApiProcessMessage } from './api-processes.ts';

function send(message: ApiProcessMessage): void {
  if (process.connected) process.send!(message);
}

/** Wake-ups for the first process's workers: the topics of one turn go in one message. */
class ForwardedSignals extends LocalSignals {
  private readonly topics = new Set<Topic>();

  override notify(topic: Topic): void {
    super.notify(topic);
    if (this.topics.size === 0) setImmediate(() => this.flush());
    this.topics.add(topic);
  }

  private flush(): void {
    send({ type: 'notify', topics: [...this.topics] });
    this.topics.clear();
  }
}

/** Runs this process as an API process until the first process stops it or goes away. */
export async function runApiProcess(): Promise<void> {
  let start: Awaited<ReturnType<typeof receiveStart>>;
  try {
    start = await receiveStart();
  } catch (err) {
    send({ type: 'failed', message: (err as Error).message });
    process.exit(1);
  }
  const named = withNodeName(start.config.node, start.config.dataDir);
  const config = {
    ...start.config,
    node: { ...named, name: `${named.name}-api${start.index}`, roles: ['api' as const] },
  };
  const logger = createLogger(config.logLevel, undefined, { timeZone: config.defaultTimeZone });
  writeLockPeers.waiting = () => send({ type: 'lock-waiting' });
  writeLockPeers.released = () => send({ type: 'lock-released' });
  const pending = new Map<number, (allowed: boolean) => void>();
  const scrapes = new Map<number, (text: string) => void>();
  let nextId = 1;
  let service: Awaited<ReturnType<typeof startService>>;
  try {
    service = await startService(config, [publicPagesComponent()], {
      logger,
      listenOn: start.listeners,
      signals: new ForwardedSignals(),
      metricsText: () =>
        new Promise<string>((resolve) => {
          const id = nextId++;
          scrapes.set(id, resolve);
          send({ type: 'scrape', id });
        }),
      allowLoginAttempt: (address) =>
        new Promise<boolean>((resolve) => {
          const id = nextId++;
          pending.set(id, resolve);
          send({ type: 'attempt', id, key: address });
        }),
    });
  } catch (err) {
    send({ type: 'failed', message: (err as Error).message });
    process.exit(1);
  }
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    await service.close().catch((err) => logger.error({ err }, 'stopping the API process failed'));
    process.exit(0);
  };
  process.on('message', (m: ApiProcessMessage) => {
    if (m.type === 'lock-waiting') peerWaitsForWriteLock();
    else if (m.type === 'lock-released') peerReleasedWriteLock();
    else if (m.type === 'stop') void stop();
    else if (m.type === 'metrics' && !m.json)
      void service.metrics.registry.getMetricsAsJSON().then((json) => send({ type: 'metrics', id: m.id, json }));
    else if (m.type === 'scrape' && m.text !== undefined) {
      scrapes.get(m.id)?.(m.text);
      scrapes.delete(m.id);
    } else if (m.type === 'attempt' && m.allowed !== undefined) {
      pending.get(m.id)?.(m.allowed);
      pending.delete(m.id);
    }
  });
  // The first process went away (a crash, kill -9): this one stops too, so no API process outlives the lock.
  process.on('disconnect', () => void stop());
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => {});
  send({ type: 'ready' });
}
