// Starts a Yona service in-process for a benchmark, on SQLite in a scratch dir or on a scratch PostgreSQL database.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { runAdminCommand } from '../../src/cli/admin.ts';
import { startApiProcesses, type ApiProcesses } from '../../src/cli/api-processes.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startService, type Component, type Service } from '../../src/service.ts';

export interface BenchService {
  service: Service;
  httpUrl: string;
  httpsUrl: string;
  admin(...args: string[]): Promise<string[]>;
  /** The API processes beside the service (YONA_API_PROCESSES above 1 on SQLite), if any. */
  apiProcesses?: ApiProcesses;
  /** CPU time (user + system, microseconds) of the service: this process and its API processes. */
  cpuUs(): number;
  close(): Promise<void>;
}

/** User + system CPU of another process so far, in microseconds (from /proc; 0 once it is gone). */
function processCpuUs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the line (11 and 12 after the name), in clock ticks (100 per second).
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
  } catch {
    return 0;
  }
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
  let apiProcesses: ApiProcesses | undefined;
  const service = await startService(config, components, {
    logger: createLogger(config.logLevel),
    metricsText: () => (apiProcesses ? apiProcesses.metricsText() : service.metrics.registry.metrics()),
  });
  if (store === 'sqlite' && config.apiProcesses > 1)
    apiProcesses = await startApiProcesses(service, config.apiProcesses);
  return {
    service,
    apiProcesses,
    cpuUs() {
      const own = process.cpuUsage();
      return own.user + own.system + (apiProcesses?.pids ?? []).reduce((sum, pid) => sum + processCpuUs(pid), 0);
    },
    httpUrl: `http://127.0.0.1:${service.http.httpPort}`,
    httpsUrl: `https://127.0.0.1:${service.http.httpsPort}`,
    async admin(...args) {
      const lines: string[] = [];
      await runAdminCommand(service.store, config, args, (l) => lines.push(l));
      return lines;
    },
    async close() {
      await apiProcesses?.close();
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
