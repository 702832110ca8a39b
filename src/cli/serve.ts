// `yona serve`: the service with every role in one process; SIGTERM/SIGINT shut it down gracefully.
import { loadConfig } from '../config.ts';
import { startService, type Component, type Service } from '../service.ts';
import { createBirthdaySender } from '../operations/send/birthday.ts';
import { birthdayComponent } from '../workers/birthdays.ts';
import { schedulerComponent } from '../workers/scheduler.ts';
import { publicPagesComponent } from '../http/public-pages.ts';
import { lockDataDir } from './serve-lock.ts';
import { carriersComponent } from '../workers/carriers.ts';
import { createPusher } from '../workers/pusher.ts';

/** Components `serve` runs besides the API (workers and the bundled simulator are added by their issues). */
export function defaultComponents(): Component[] {
  return [schedulerComponent(), publicPagesComponent(), carriersComponent(), createPusher(), birthdaysComponent()];
}

/** The birthday worker sending through the normal send path of the running service. */
export function birthdaysComponent(intervalMs?: number): Component {
  let service: Service | undefined;
  const worker = birthdayComponent(
    createBirthdaySender(() => ({ dialect: service!.store.dialect, config: service!.config, signals: service!.signals, clock: service!.clock })),
    intervalMs,
  );
  return {
    name: worker.name,
    async start(s) {
      service = s;
      await worker.start(s);
    },
    stop: () => worker.stop(),
  };
}

/** Starts the service and waits for a signal. */
export async function runServe(): Promise<void> {
  const config = loadConfig();
  const unlock = config.databaseUrl ? () => {} : lockDataDir(config.dataDir);
  const service = await startService(config, defaultComponents());
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    await service.close();
    unlock();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
