// Composes one Yona process: store, logger, metrics, HTTP listeners and the workers of its roles.
import { registerNodeMetrics } from './cluster/metrics.ts';
import { ClusterNode } from './cluster/node.ts';
import { withNodeName } from './cluster/node-identity.ts';
import type { Component, ComponentHost } from './component.ts';
import type { Config } from './config.ts';
import { VERSION } from './domain/version.ts';
import { liveTextCarrier } from './delivery/carrier-setup.ts';
import { testRoute } from './delivery/route-test.ts';
import { publicUrlLocalReason } from './domain/public-url.ts';
import { createLogger, type Logger } from './logger.ts';
import { createMetrics, type Metrics } from './http/metrics.ts';
import { startHttp, type RunningHttp } from './http/server.ts';
import { loadTls } from './http/tls.ts';
import type { AppContext } from './operations/execute.ts';
import { UnknownFieldLog } from './operations/near-miss.ts';
import { LocalSignals } from './signals.ts';
import { ChannelCoverage } from './delivery/send-coverage.ts';
import { openStore } from './store/engine/db.ts';
import { sealClearSecrets } from './store/seal-at-rest.ts';
import { carrierSecrets } from './carriers/index.ts';
import { sealingKey } from './secret-key.ts';

export interface ServiceOptions {
  logger?: Logger;
  clock?: () => number;
}

export type { Component, RoleHealth } from './component.ts';

/** A started service: what its components see, its API metrics and HTTP listeners, and how to stop it. */
export interface Service extends ComponentHost {
  metrics: Metrics;
  http: RunningHttp;
  close(): Promise<void>;
}

/** Starts the service; resolves once migrations ran and both listeners accept connections. */
export async function startService(
  config: Config,
  components: Component[] = [],
  options: ServiceOptions = {},
): Promise<Service> {
  const logger = options.logger ?? createLogger(config.logLevel, undefined, { timeZone: config.defaultTimeZone });
  const clock = options.clock ?? Date.now;
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    pgPool: config.pgPool,
    groupCommit: config.sqliteGroupCommit,
    pgGroupLanes: config.pgGroupLanes,
  });
  // Secrets an earlier version stored in clear are sealed before anything reads them.
  const sealed = await sealClearSecrets(store.db, () => sealingKey(config), carrierSecrets);
  if (sealed.carriers + sealed.pushSecrets > 0)
    logger.info(
      { event: 'secrets.sealed', carriers: sealed.carriers, push_secrets: sealed.pushSecrets },
      'secrets stored in clear by an earlier version are now sealed with the secret key',
    );
  const metrics = createMetrics();
  const signals = new LocalSignals();
  // Only a node that accepts sends needs to know which channels have a carrier.
  const node = new ClusterNode(store, withNodeName(config.node, config.dataDir), logger, clock);
  const coverage = node.has('api') ? await ChannelCoverage.start(store, config, logger) : undefined;
  const unknownFieldLog = new UnknownFieldLog();
  const ctx: AppContext = {
    store,
    config,
    signals,
    clock,
    liveTextCarrier: (db) => liveTextCarrier(db, config.carriersFile, () => sealingKey(config)),
    routeTest: (question) => testRoute(store.db, config, question),
    onUnexpectedError: (err, root) => logger.error({ err, operation: root }, 'operation failed unexpectedly'),
    onLegacyAuth: (username, result) => {
      metrics.legacyAuth.inc({ result });
      if (result !== 'ok') logger.warn({ username, result, legacy: true }, 'password authentication refused');
      else logger.debug({ username, legacy: true }, 'password authentication');
    },
    coverage,
    onUnknownFields: (account, operation, fields) => {
      const fresh = unknownFieldLog.firstSeen(account.id, fields);
      if (fresh.length > 0)
        logger.info({ username: account.username, operation, fields: fresh }, 'unknown fields ignored');
    },
  };
  await node.start();
  registerNodeMetrics(metrics.registry, node, store);
  const tls = await loadTls(config);
  const routes = components.flatMap((c) => (c.routes ? [c.routes] : []));
  const health = () => components.flatMap((c) => c.health?.() ?? []);
  const simulators = () => components.flatMap((c) => c.simulators?.() ?? []);
  const webhooks = components.find((c) => c.webhooks)?.webhooks;
  const http = await startHttp({
    ctx,
    metrics,
    logger,
    tls,
    routes,
    node,
    health,
    simulators,
    webhooks,
    api: node.has('api'),
  });
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
      coverage?.stop();
      await node.stop();
      await store.close();
    },
  };
  for (const c of components) await c.start(service);
  const localLinks = publicUrlLocalReason(config.httpsHost, config.publicUrl);
  if (localLinks)
    logger.warn(
      {
        event: 'config.public_url_local',
        public_url: config.publicUrl,
        https_host: config.httpsHost,
        reason: localLinks,
      },
      'YONA_PUBLIC_URL is not public although the HTTPS listener is: links texted to recipients would not open; set YONA_PUBLIC_URL to the address the service is reached at',
    );
  logger.info(
    {
      version: VERSION,
      https: http.httpsPort,
      http: `${config.httpHost}:${http.httpPort}`,
      store: store.dialect,
      selfSignedTls: tls.selfSigned,
      node: node.name,
      roles: node.roles.join(','),
      ...(node.roles.includes('api') ? { console: `${config.publicUrl}/console` } : {}),
    },
    'yona is serving',
  );
  return service;
}
