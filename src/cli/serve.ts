// `yona serve [--roles api,dispatcher,...]`: the service with its roles (all by default) in one process;
// SIGTERM/SIGINT shut it down gracefully.
import { parseArgs } from 'node:util';
import { ledComponent } from '../cluster/leader.ts';
import { loadConfig } from '../config.ts';
import { parseRoles, ROLES, type Role } from '../domain/roles.ts';
import { createLogger } from '../logger.ts';
import type { ComponentHost } from '../component.ts';
import { startService, type Component } from '../service.ts';
import { createBirthdaySender } from '../operations/send/birthday.ts';
import { birthdayComponent } from '../delivery/birthdays.ts';
import { schedulerComponent } from '../delivery/scheduler.ts';
import { retentionComponent } from '../delivery/retention.ts';
import { alertsComponent } from '../delivery/alerts.ts';
import { publicPagesComponent } from '../http/public-pages.ts';
import { lockDataDir } from './serve-lock.ts';
import { registerServer, withoutPassword } from './serve-registry.ts';
import { carriersComponent } from '../delivery/carriers.ts';
import { ingressComponent } from '../delivery/ingress.ts';
import { whatsappSendingComponent } from '../delivery/whatsapp-sending.ts';
import { createPusher } from '../delivery/pusher.ts';
import { smppServerComponent } from '../smpp-server/component.ts';

/** Components `serve` runs besides the API for the given roles (all by default). */
export function defaultComponents(roles: readonly Role[] = ROLES, logger = createLogger('info')): Component[] {
  const has = (r: Role) => roles.includes(r);
  const components: Component[] = [];
  if (has('scheduler'))
    components.push(
      schedulerRole([schedulerComponent(), birthdaysComponent(), retentionComponent(), alertsComponent()], logger),
    );
  const carriers = has('dispatcher') || has('voice') || has('receipts') ? carriersComponent() : undefined;
  const bundled = () => carriers?.runtime()?.simulators?.map((s) => s.carrier) ?? [];
  if (has('api')) components.push(publicPagesComponent(), ingressComponent({ bundled }));
  if (carriers) components.push(carriers);
  if (has('dispatcher')) components.push(whatsappSendingComponent({ bundled }));
  if (has('pusher')) components.push(createPusher());
  if (has('smpp')) components.push(smppServerComponent());
  return components;
}

// Scheduled releases, birthday runs, the retention sweep and the operator's alerts happen on one node at a time: the one holding the scheduler lease.
function schedulerRole(inner: Component[], logger: ReturnType<typeof createLogger>): Component {
  const led = ledComponent('scheduler', inner, logger);
  return { ...led, health: () => [{ role: 'scheduler', ok: true, leader: led.leading() }] };
}

/** The birthday worker sending through the normal send path of the running service. */
export function birthdaysComponent(intervalMs?: number): Component {
  let service: ComponentHost | undefined;
  const worker = birthdayComponent(
    createBirthdaySender(() => ({
      config: service!.config,
      signals: service!.signals,
      clock: service!.clock,
    })),
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
export async function runServe(args: string[] = []): Promise<void> {
  const { values } = parseArgs({ args, options: { roles: { type: 'string' } } });
  const loaded = loadConfig();
  const roles = values.roles === undefined ? loaded.node.roles : parseRoles(values.roles);
  const config = { ...loaded, node: { ...loaded.node, roles } };
  const unlock = config.databaseUrl ? () => {} : lockDataDir(config.dataDir);
  const logger = createLogger(config.logLevel, undefined, { timeZone: config.defaultTimeZone });
  const service = await startService(config, defaultComponents(roles, logger), { logger });
  const unregister = registerServer({
    dataDir: config.dataDir,
    database: config.databaseUrl ? withoutPassword(config.databaseUrl) : undefined,
    httpUrl: `http://${config.httpHost}:${service.http.httpPort}`,
  });
  process.once('exit', unregister);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    await service.close();
    unregister();
    unlock();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
