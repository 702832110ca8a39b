// The `smpp` role: the SMPP server for customers as a component of `yona serve`. Its listeners open when
// YONA_SMPP_PORT and/or YONA_SMPP_TLS_PORT are set (TLS with the HTTPS listener's certificate); it runs sends
// through the operation runner as the API does, and reports to /healthz and /metrics.
import type { Component, ComponentHost, RoleHealth } from '../component.ts';
import { liveTextCarrier } from '../delivery/carrier-setup.ts';
import { ChannelCoverage } from '../delivery/send-coverage.ts';
import { loadTls } from '../http/tls.ts';
import type { AppContext } from '../operations/execute.ts';
import { sealingKey } from '../secret-key.ts';
import { SMPP_SERVER_DEFAULTS, SmppServer, type SmppServerOptions } from './server.ts';

/** The SMPP server component; `options` shorten its timings (tests). */
export function smppServerComponent(options: Partial<SmppServerOptions> = {}): Component & {
  /** The running server (after start, while a listener is configured). */
  server(): SmppServer | undefined;
} {
  let server: SmppServer | undefined;
  let coverage: ChannelCoverage | undefined;
  return {
    name: 'smpp-server',
    server: () => server,
    async start(host: ComponentHost) {
      const { config, logger } = host;
      const { port, tlsPort, host: address } = config.smpp;
      if (port === undefined && tlsPort === undefined) return;
      coverage = await ChannelCoverage.start(host.store, config, logger);
      const app: AppContext = {
        store: host.store,
        config,
        signals: host.signals,
        clock: host.clock,
        coverage,
        liveTextCarrier: (db) => liveTextCarrier(db, config.carriersFile, () => sealingKey(config)),
        onUnexpectedError: (err, root) => logger.error({ err, operation: root }, 'operation failed unexpectedly'),
      };
      server = new SmppServer(host, app, { ...SMPP_SERVER_DEFAULTS, ...options });
      const tls = tlsPort !== undefined ? await loadTls(config) : undefined;
      const ports = await server.listen({ host: address, port, tlsPort, tls });
      logger.info(
        { event: 'smpp.listening', host: address, port: ports.port, tls_port: ports.tlsPort },
        'SMPP server for customers listening',
      );
    },
    async stop() {
      await server?.close();
      coverage?.stop();
      server = undefined;
    },
    health(): RoleHealth[] {
      if (!server) return [];
      const { port, tlsPort } = server.listening;
      return [{ role: 'smpp', ok: true, port, tls_port: tlsPort, binds: server.bindCounts() }];
    },
  };
}
