// Starts a real Yona service on ephemeral loopback ports for end-to-end tests, and talks to it over HTTP.
import { Agent, request } from 'undici';
import { runAdminCommand } from '../../src/cli/admin.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger, type Logger } from '../../src/logger.ts';
import { startService, type Component, type Service } from '../../src/service.ts';
import type { StoreTarget } from './stores.ts';

export interface TestServiceOptions {
  env?: Record<string, string>;
  components?: Component[];
  clock?: () => number;
  /** The service's logger (default: one at YONA_LOG_LEVEL to stdout). */
  logger?: Logger;
}

export interface ApiCallOptions {
  token?: string;
  encoding?: 'json' | 'xml';
  dryRun?: boolean;
  https?: boolean;
  headers?: Record<string, string>;
}

export interface TestService {
  service: Service;
  config: Config;
  httpUrl: string;
  httpsUrl: string;
  /** POSTs a raw body to /api (or /api/test); returns HTTP status, content type and text. */
  post(
    body: string,
    options?: ApiCallOptions & { contentType?: string },
  ): Promise<{ httpStatus: number; contentType: string; text: string }>;
  /** Calls an operation with a JSON document; returns the parsed JSON reply. */
  api(root: string, doc: Record<string, unknown>, options?: ApiCallOptions): Promise<Record<string, any>>;
  /** Runs `yona admin ...` in-process on the same store; returns its output lines. */
  admin(...args: string[]): Promise<string[]>;
  /** Creates an account (with credits) and a token for it. */
  account(username: string, extra?: string[]): Promise<{ username: string; token: string }>;
  /** The id of an account, by username. */
  accountId(username: string): Promise<number>;
  /** Stops this service, keeping its store, and starts another on that store (whose close() removes it). */
  restart(options?: TestServiceOptions): Promise<TestService>;
  close(): Promise<void>;
}

type CreatedStore = Awaited<ReturnType<StoreTarget['create']>>;

const insecure = new Agent({ connect: { rejectUnauthorized: false } });

/** Starts a service on an empty store of the given target. */
export async function startTestService(target: StoreTarget, options: TestServiceOptions = {}): Promise<TestService> {
  return startOnStore(await target.create(), options);
}

async function startOnStore(created: CreatedStore, options: TestServiceOptions): Promise<TestService> {
  const env = {
    ...process.env,
    YONA_HTTPS_PORT: '0',
    YONA_HTTP_PORT: '0',
    YONA_HTTPS_HOST: '127.0.0.1',
    YONA_LOG_LEVEL: process.env.YONA_TEST_LOG_LEVEL ?? 'silent',
    ...created.env,
    ...options.env,
  };
  const config = loadConfig(env);
  const service = await startService(config, options.components ?? [], {
    logger: options.logger ?? createLogger(config.logLevel),
    clock: options.clock,
  });
  const httpUrl = `http://127.0.0.1:${service.http.httpPort}`;
  const httpsUrl = `https://127.0.0.1:${service.http.httpsPort}`;

  const post: TestService['post'] = async (body, o = {}) => {
    const base = o.https ? httpsUrl : httpUrl;
    const headers: Record<string, string> = { ...o.headers };
    if (o.contentType !== undefined) headers['content-type'] = o.contentType;
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    const res = await request(`${base}${o.dryRun ? '/api/test' : '/api'}`, {
      method: 'POST',
      body,
      headers,
      dispatcher: o.https ? insecure : undefined,
    });
    return {
      httpStatus: res.statusCode,
      contentType: String(res.headers['content-type'] ?? ''),
      text: await res.body.text(),
    };
  };

  const admin: TestService['admin'] = async (...args) => {
    const lines: string[] = [];
    await runAdminCommand(service.store, config, args, (l) => lines.push(l));
    return lines;
  };

  return {
    service,
    config,
    httpUrl,
    httpsUrl,
    post,
    admin,
    async api(root, doc, o = {}) {
      const res = await post(JSON.stringify({ [root]: doc }), { ...o, contentType: 'application/json' });
      if (res.httpStatus !== 200) throw new Error(`HTTP ${res.httpStatus}: ${res.text}`);
      return JSON.parse(res.text);
    },
    async account(username, extra = []) {
      await admin('create-account', username, '--password', 'secret-pw', '--credits', '1000', ...extra);
      const lines = await admin('create-token', username);
      return { username, token: lines[lines.length - 1] };
    },
    async accountId(username) {
      const row = await service.store.db
        .selectFrom('accounts')
        .select('id')
        .where('username', '=', username)
        .executeTakeFirstOrThrow();
      return Number(row.id);
    },
    async restart(next = {}) {
      await service.close();
      return startOnStore(created, next);
    },
    async close() {
      await service.close();
      await created.cleanup();
    },
  };
}
