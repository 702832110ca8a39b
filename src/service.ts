// Composes one Yona process: store, logger, metrics, HTTP listeners and the workers of its roles.
import type { FastifyInstance } from 'fastify';
import { registerNodeMetrics } from './cluster/metrics.ts';
import { ClusterNode } from './cluster/node.ts';
import type { Role } from './domain/roles.ts';
import type { Config } from './config.ts';
import { createLogger, type Logger } from './logger.ts';
import { createMetrics, type Metrics } from './http/metrics.ts';
import { startHttp, type RunningHttp } from './http/server.ts';
import { loadTls } from './http/tls.ts';
import type { AppContext } from './operations/execute.ts';
import { UnknownFieldLog } from './operations/near-miss.ts';
import { LocalSignals } from './signals.ts';
import { openStore, type Store } from './store/db.ts';

export interface ServiceOptions {
  logger?: Logger;
  clock?: () => number;
}

/** A piece of the process that starts after the store and stops before it (workers, simulators). */
export interface Component {
  name: string;
  start(service: Service): Promise<void>;
  stop(): Promise<void>;
  /** Routes this component serves (public pages), registered before listening. */
  routes?: (app: FastifyInstance) => void;
  /** How the roles it serves are doing, for /healthz. */
  health?: () => RoleHealth[];
}

/** A role's state on this node: ok false answers /healthz with 503. */
export interface RoleHealth {
  role: Role;
  ok: boolean;
  [detail: string]: unknown;
}

export interface Service {
  config: Config;
  store: Store;
  logger: Logger;
  metrics: Metrics;
  signals: LocalSignals;
  clock: () => number;
  http: RunningHttp;
  /** This node among the nodes of the database: its roles and leases. */
  node: ClusterNode;
  close(): Promise<void>;
}

/** Starts the service; resolves once migrations ran and both listeners accept connections. */
export async function startService(
  config: Config,
  components: Component[] = [],
  options: ServiceOptions = {},
): Promise<Service> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? Date.now;
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    pgPool: config.pgPool,
    groupCommit: config.sqliteGroupCommit,
    pgGroupLanes: config.pgGroupLanes,
  });
  const metrics = createMetrics();
  const signals = new LocalSignals();
  const unknownFieldLog = new UnknownFieldLog();
  const ctx: AppContext = {
    store,
    config,
    signals,
    clock,
    onUnexpectedError: (err, root) => logger.error({ err, operation: root }, 'operation failed unexpectedly'),
    onLegacyAuth: (username, result) => {
      metrics.legacyAuth.inc({ result });
      if (result !== 'ok') logger.warn({ username, result, legacy: true }, 'password authentication refused');
      else logger.debug({ username, legacy: true }, 'password authentication');
    },
    onUnknownFields: (account, operation, fields) => {
      const fresh = unknownFieldLog.firstSeen(account.id, fields);
      if (fresh.length > 0)
        logger.info({ username: account.username, operation, fields: fresh }, 'unknown fields ignored');
    },
  };
  const node = new ClusterNode(store, config.node, logger, clock);
  await node.start();
  registerNodeMetrics(metrics.registry, node, store);
  const tls = await loadTls(config);
  const routes = components.flatMap((c) => (c.routes ? [c.routes] : []));
  const health = () => components.flatMap((c) => c.health?.() ?? []);
  const http = await startHttp({ ctx, metrics, logger, tls, routes, node, health, api: node.has('api') });
  const service: Service = {
    config,
    store,
    logger,
    metrics,
    signals,
    clock,
    http,
    node,
    async close() {
      // Listeners first: no new work arrives while the workers finish theirs.
      await http.close();
      for (const c of [...components].reverse())
        await c.stop().catch((err) => logger.error({ err }, `stopping ${c.name} failed`));
      await node.stop();
      await store.close();
    },
  };
  for (const c of components) await c.start(service);
  logger.info(
    {
      https: http.httpsPort,
      http: `${config.httpHost}:${http.httpPort}`,
      store: store.dialect,
      selfSignedTls: tls.selfSigned,
      node: node.name,
      roles: node.roles.join(','),
    },
    'yona is serving',
  );
  return service;
}
