// The HTTP side: one fastify app served over HTTPS (TLS >= 1.2) and over plain HTTP (loopback by default).
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Logger } from '../logger.ts';
import type { AppContext } from '../operations/execute.ts';
import { apiErrorReply, registerApiRoutes } from './api-route.ts';
import { registerApiGuide } from './api-guide.ts';
import { registerConsole } from './console/index.ts';
import { registerAdmin } from './admin/index.ts';
import { registerHealth, type HealthSource } from './health.ts';
import { registerOpenApiRoute } from './openapi/route.ts';
import { lazyRequestLogger } from './request-logger.ts';
import { registerWebhooks } from './webhooks.ts';
import type { WebhookIngress } from '../component.ts';
import type { Metrics } from './metrics.ts';
import type { TlsMaterial } from './tls.ts';

export interface HttpDeps {
  ctx: AppContext;
  metrics: Metrics;
  logger: Logger;
  tls: TlsMaterial;
  /** More routes (public links, console) registered by their owners. */
  routes?: Array<(app: FastifyInstance) => void>;
  node: HealthSource['node'];
  health: HealthSource['health'];
  simulators?: HealthSource['simulators'];
  /** Serve the API, the console and the public pages (the api role); otherwise only /healthz and /metrics. */
  api: boolean;
  /** Carriers' webhooks, mounted under /webhooks on an API node. */
  webhooks?: WebhookIngress;
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

/** Whether a request came through a proxy (which may be relaying an outside caller to the loopback listener). */
function isProxied(headers: http.IncomingHttpHeaders): boolean {
  return headers['x-forwarded-for'] !== undefined || headers.forwarded !== undefined;
}

/** Builds the app and listens on both ports. */
export async function startHttp(deps: HttpDeps): Promise<RunningHttp> {
  const { config } = deps.ctx;
  let handler: http.RequestListener | undefined;
  const drain = new Drain();
  const listener: http.RequestListener = (req, res) => {
    if (drain.closing) res.setHeader('connection', 'close');
    handler!(req, res);
  };
  const httpsServer = https.createServer({ key: deps.tls.key, cert: deps.tls.cert, minVersion: 'TLSv1.2' });
  const app = Fastify({
    loggerInstance: deps.logger,
    logController: new LogController({ disableRequestLogging: !config.logRequests }),
    childLoggerFactory: lazyRequestLogger as never,
    bodyLimit: config.bodyLimit,
    trustProxy: config.trustProxy.length ? config.trustProxy : false,
    // `POST /api/` and `/api/test/` are /api and /api/test (clients build URLs from a base ending in a slash).
    routerOptions: { ignoreTrailingSlash: true },
    // The TLS server comes from the factory below; this only makes fastify's "listening" log say https.
    https: {},
    serverFactory: (h) => {
      handler = h;
      httpsServer.on('request', listener);
      return httpsServer;
    },
  }) as unknown as FastifyInstance;
  app.removeAllContentTypeParsers();
  // Bodies stay bytes: the API codec decodes them in the charset the request names.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  app.setErrorHandler((error: { statusCode?: number; message: string }, request, reply) => {
    if (request.url.startsWith('/api')) return apiErrorReply(request, reply, error, config.bodyLimit, deps.logger);
    if (!error.statusCode || error.statusCode >= 500) deps.logger.error({ err: error }, 'request failed');
    return reply.code(error.statusCode ?? 500).send({ error: error.message });
  });

  // Any other path: a plain 404 on both listeners, naming no route or method.
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: 'Not Found' }));
  if (deps.api) {
    registerApiRoutes(app, deps.ctx, deps.metrics, deps.logger);
    registerOpenApiRoute(app);
    registerApiGuide(app);
  }
  registerHealth(app, {
    db: deps.ctx.store.db,
    dialect: deps.ctx.store.dialect,
    node: deps.node,
    health: deps.health,
    simulators: deps.simulators,
    clock: deps.ctx.clock,
  });
  // Metrics only on the plain loopback listener, and never relayed by a proxy: not over the public HTTPS port.
  app.get('/metrics', async (request, reply) => {
    const encrypted = (request.raw.socket as { encrypted?: boolean }).encrypted === true;
    if (encrypted || !isLoopback(request.raw.socket.remoteAddress) || isProxied(request.headers)) {
      return reply.code(404).send({ error: 'Not Found' });
    }
    return reply.header('content-type', deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
  if (deps.api) {
    registerConsole(app, deps.ctx, deps.logger);
    registerAdmin(app, deps.ctx, deps.logger);
    if (deps.webhooks) registerWebhooks(app, deps.webhooks);
    for (const register of deps.routes ?? []) register(app);
  }

  const httpServer = http.createServer(listener);
  httpServer.keepAliveTimeout = 65_000;
  httpsServer.keepAliveTimeout = 65_000;
  drain.track(httpServer, 'connection');
  drain.track(httpsServer, 'secureConnection');
  await app.listen({ port: config.httpsPort, host: config.httpsHost });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(config.httpPort, config.httpHost, () => resolve());
  });
  return {
    app,
    httpsPort: (httpsServer.address() as AddressInfo).port,
    httpPort: (httpServer.address() as AddressInfo).port,
    /** Stops accepting, lets requests in flight on both listeners finish, closes keep-alive connections. */
    async close() {
      drain.start();
      const httpClosed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      try {
        await Promise.all([httpClosed, app.close()]);
      } finally {
        drain.stop();
      }
    },
  };
}

const IDLE_SWEEP_MS = 100;

/**
 * Graceful close of both listeners: in-flight requests finish and their replies carry `Connection: close`,
 * idle keep-alive connections close at once (and any that turn idle later, on the next sweep).
 */
class Drain {
  closing = false;
  private readonly sockets = new Set<Socket>();
  private readonly servers: http.Server[] = [];
  private sweep: NodeJS.Timeout | undefined;

  /** Remembers the server's open connections (`secureConnection` for TLS: the socket HTTP runs on). */
  track(server: http.Server, event: 'connection' | 'secureConnection'): void {
    this.servers.push(server);
    server.on(event, (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  /** Marks replies in progress as their connection's last, and closes idle connections now and every sweep. */
  start(): void {
    this.closing = true;
    for (const socket of this.sockets) {
      // The reply being answered on this connection (what node:http itself keeps there).
      const reply = (socket as Socket & { _httpMessage?: http.ServerResponse })._httpMessage;
      if (reply && !reply.headersSent) reply.setHeader('connection', 'close');
    }
    const closeIdle = () => this.servers.forEach((s) => s.closeIdleConnections());
    closeIdle();
    this.sweep = setInterval(closeIdle, IDLE_SWEEP_MS);
    this.sweep.unref();
  }

  /** Ends the sweep once both servers closed. */
  stop(): void {
    clearInterval(this.sweep);
  }
}
