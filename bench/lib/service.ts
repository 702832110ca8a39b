// Starts a Yona service in-process for a benchmark, on SQLite in a scratch dir or on a scratch PostgreSQL database.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { runAdminCommand } from '../../src/cli/admin.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startService, type Component, type Service } from '../../src/service.ts';

export interface BenchService {
  service: Service;
  httpUrl: string;
  httpsUrl: string;
  admin(...args: string[]): Promise<string[]>;
  close(): Promise<void>;
}

const PG_ADMIN = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** `--store postgres` (or BENCH_STORE=postgres) selects PostgreSQL; SQLite otherwise. */
export function benchStore(argv = process.argv): 'sqlite' | 'postgres' {
  const i = argv.indexOf('--store');
  const value = i >= 0 ? argv[i + 1] : process.env.BENCH_STORE;
  return value === 'postgres' ? 'postgres' : 'sqlite';
}

/** Starts the service with the given components on a fresh store. */
export async function startBenchService(
  store: 'sqlite' | 'postgres',
  components: Component[] = [],
  env: Record<string, string> = {},
): Promise<BenchService> {
  const dir = mkdtempSync(join(tmpdir(), 'yona-bench-'));
  let dbName: string | undefined;
  let databaseUrl = '';
  if (store === 'postgres') {
    dbName = `yona_bench_${process.pid}`;
    const c = new pg.Client({ connectionString: PG_ADMIN });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${dbName}`);
    await c.end();
    const url = new URL(PG_ADMIN);
    url.pathname = `/${dbName}`;
    databaseUrl = url.toString();
  }
  const config = loadConfig({
    ...process.env,
    YONA_DATA_DIR: dir,
    DATABASE_URL: databaseUrl,
    YONA_HTTPS_PORT: '0',
    YONA_HTTP_PORT: '0',
    YONA_HTTPS_HOST: '127.0.0.1',
    YONA_LOG_LEVEL: 'warn',
    ...env,
  });
  const service = await startService(config, components, { logger: createLogger(config.logLevel) });
  return {
    service,
    httpUrl: `http://127.0.0.1:${service.http.httpPort}`,
    httpsUrl: `https://127.0.0.1:${service.http.httpsPort}`,
    async admin(...args) {
      const lines: string[] = [];
      await runAdminCommand(service.store, config, args, (l) => lines.push(l));
      return lines;
    },
    async close() {
      await service.close();
      rmSync(dir, { recursive: true, force: true });
      if (dbName) {
        const c = new pg.Client({ connectionString: PG_ADMIN });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
        await c.end();
      }
    },
  };
}

/** Peak resident set size of this process so far, in MB (from the kernel's high-water mark). */
export async function peakRssMb(): Promise<number> {
  const { readFileSync } = await import('node:fs');
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : Math.round(process.memoryUsage().rss / 1048576);
}
