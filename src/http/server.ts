// The HTTP side: one fastify app served over HTTPS (TLS >= 1.2) and over plain HTTP (loopback by default).
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Logger } from '../logger.ts';
import type { AppContext } from '../operations/execute.ts';
import { apiErrorReply, registerApiRoutes } from './api-route.ts';
import type { Metrics } from './metrics.ts';
import type { TlsMaterial } from './tls.ts';

export interface HttpDeps {
  ctx: AppContext;
  metrics: Metrics;
  logger: Logger;
  tls: TlsMaterial;
  /** More routes (public links, console) registered by their owners. */
  routes?: Array<(app: FastifyInstance) => void>;
}

export interface RunningHttp {
  app: FastifyInstance;
  httpsPort: number;
  httpPort: number;
  close(): Promise<void>;
}

function isLoopback(address: string | undefined): boolean {
  return !!address && (address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.'));
}

/** Builds the app and listens on both ports. */
export async function startHttp(deps: HttpDeps): Promise<RunningHttp> {
  const { config } = deps.ctx;
  let handler: http.RequestListener | undefined;
  const httpsServer = https.createServer({ key: deps.tls.key, cert: deps.tls.cert, minVersion: 'TLSv1.2' });
  const app = Fastify({
    loggerInstance: deps.logger,
    logController: new LogController({ disableRequestLogging: !config.logRequests }),
    bodyLimit: config.bodyLimit,
    trustProxy: config.trustProxy.length ? config.trustProxy : false,
    serverFactory: (h) => {
      handler = h;
      httpsServer.on('request', h);
      return httpsServer;
    },
  }) as unknown as FastifyInstance;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

  app.setErrorHandler((error: { statusCode?: number; message: string }, request, reply) => {
    if (request.url.startsWith('/api')) return apiErrorReply(request, reply, error, config.bodyLimit);
    if (!error.statusCode || error.statusCode >= 500) deps.logger.error({ err: error }, 'request failed');
    return reply.code(error.statusCode ?? 500).send({ error: error.message });
  });

  registerApiRoutes(app, deps.ctx, deps.metrics);
  app.get('/healthz', async (_req, reply) => {
    await deps.ctx.store.db.selectFrom('yona_migrations' as any).select('name').limit(1).execute();
    return reply.send({ status: 'ok', store: deps.ctx.store.dialect });
  });
  // Metrics only on the plain loopback listener: never over the public HTTPS port.
  app.get('/metrics', async (request, reply) => {
    const encrypted = (request.raw.socket as { encrypted?: boolean }).encrypted === true;
    if (encrypted || !isLoopback(request.raw.socket.remoteAddress)) return reply.code(404).send({ error: 'Not Found' });
    return reply.header('content-type', deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
  for (const register of deps.routes ?? []) register(app);

  await app.listen({ port: config.httpsPort, host: config.httpsHost });
  const httpServer = http.createServer(handler!);
  httpServer.keepAliveTimeout = 65_000;
  httpsServer.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(config.httpPort, config.httpHost, () => resolve());
  });
  return {
    app,
    httpsPort: (httpsServer.address() as AddressInfo).port,
    httpPort: (httpServer.address() as AddressInfo).port,
    async close() {
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      httpServer.closeIdleConnections();
      await app.close();
      httpServer.closeAllConnections();
      await closed;
    },
  };
}
