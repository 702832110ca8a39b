// Several `yona serve` processes on one scratch PostgreSQL database, for benchmarks of nodes working together:
// each a child process on its own loopback ports, named node-1, node-2, ..., with the roles it is given.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { runAdminCommand } from '../../src/cli/admin.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore, type Store } from '../../src/store/engine/db.ts';

const PG_ADMIN = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const bin = join(import.meta.dirname, '../../bin/yona.js');

export interface BenchNode {
  name: string;
  child: ChildProcess;
  httpPort: number;
  httpsPort: number;
  /** CPU seconds the process used so far (from /proc). */
  cpuSeconds(): number;
}

/** A fresh database; `drop()` removes it. */
export async function scratchDatabase(tag: string): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `yona_bench_${tag}_${process.pid}`;
  const run = async (sql: string) => {
    const c = new pg.Client({ connectionString: PG_ADMIN });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await run(`CREATE DATABASE ${name}`);
  const url = new URL(PG_ADMIN);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), drop: () => run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** Starts a node (`nodeArgs` go to Node itself, e.g. --cpu-prof); resolves once it logs that it serves (fails after 90 s: a loaded machine starts slowly). */
export async function startNode(
  name: string,
  roles: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<BenchNode> {
  const dir = mkdtempSync(join(tmpdir(), `yona-bench-${name}-`));
  const child = spawn(process.execPath, [...nodeArgs, bin, 'serve', '--roles', roles], {
    env: {
      ...process.env,
      YONA_DATA_DIR: dir,
      YONA_HTTPS_PORT: '0',
      YONA_HTTP_PORT: '0',
      YONA_HTTPS_HOST: '127.0.0.1',
      YONA_LOG_LEVEL: 'info',
      YONA_NODE_NAME: name,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  let logs = '';
  child.stdout!.on('data', (d) => (logs = (logs + d).slice(-20_000)));
  child.stderr!.on('data', (d) => (logs = (logs + d).slice(-20_000)));
  const deadline = Date.now() + 90_000;
  for (;;) {
    const line = logs.split('\n').find((l) => l.includes('yona is serving'));
    if (line) {
      const started = JSON.parse(line) as { https: number; http: string };
      return {
        name,
        child,
        httpsPort: started.https,
        httpPort: Number(started.http.split(':').at(-1)),
        cpuSeconds: () => cpuSecondsOf(child.pid!),
      };
    }
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not start:\n${logs}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Stops nodes with SIGTERM and waits for them to exit. */
export async function stopNodes(nodes: BenchNode[]): Promise<void> {
  await Promise.all(
    nodes.map(
      (n) =>
        new Promise<void>((resolve) => {
          if (n.child.exitCode !== null) return resolve();
          n.child.once('exit', () => resolve());
          n.child.kill('SIGTERM');
        }),
    ),
  );
}

/** CPU seconds a process used so far (user and system, from /proc), 0 once it is gone. */
export function cpuSecondsOf(pid: number): number {
  try {
    // /proc/PID/stat: fields 14 and 15 are user and system time in clock ticks (100 per second).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/**
 * CPU seconds used so far by each of the PostgreSQL server's processes (live ones), by pid: its background
 * processes (WAL writer, checkpointer, ...) and, given `database`, only the backends connected to that database,
 * so other databases' work on a shared machine does not count.
 */
export function postgresCpuSeconds(database?: string): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      if (database) {
        // A backend's title: "postgres: 15/main: USER DATABASE HOST(PORT) STATE".
        const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
        if (/\(\d+\)|\[local\]/.test(title) && !title.includes(` ${database} `)) continue;
      }
      byPid.set(Number(entry), cpuSecondsOf(Number(entry)));
    } catch {
      // gone meanwhile
    }
  }
  return byPid;
}

/**
 * CPU seconds PostgreSQL's processes used between two readings of postgresCpuSeconds: those alive at the second,
 * from the first (or from their start), so a backend that ended meanwhile (a pool closing an idle connection)
 * takes nothing away.
 */
export function postgresCpuBetween(from: Map<number, number>, to: Map<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of to) total += seconds - (from.get(pid) ?? 0);
  return total;
}

/** The value after `--NAME` on the command line, or the fallback. */
export function argValue(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

/** The accept benches' request: a single-recipient `sms` of the account `bench` from its verified sender. */
export const BENCH_SMS = JSON.stringify({
  sms: {
    user: { username: 'bench' },
    source: 'Yona',
    destinations: { phone: '0501234567' },
    message: 'Your code is 123456',
  },
});

/** The headers of a JSON API request with the bench account's token. */
export function benchHeaders(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
}

/**
 * Opens a scratch store (migrated) with the account `bench`: `credits`, a token, the verified sender Yona. The
 * store is PostgreSQL at `url`, or the embedded store in `dataDir` when `url` is empty.
 */
export async function openWithBenchAccount(
  url: string,
  env: Record<string, string>,
  credits: number,
  dataDir = tmpdir(),
): Promise<{ store: Store; token: string }> {
  const config = loadConfig({ ...process.env, ...env, YONA_DATA_DIR: dataDir });
  const store = await openStore({ databaseUrl: url, dataDir });
  const lines: string[] = [];
  const admin = (...a: string[]) => runAdminCommand(store, config, a, (l) => lines.push(l));
  await admin('create-account', 'bench', '--password', 'bench-password', '--credits', String(credits));
  await admin('create-token', 'bench');
  const token = lines.at(-1)!;
  await admin('verify-sender', 'bench', 'Yona');
  return { store, token };
}

/** Peak resident set size of a process so far, in MB (the kernel's high-water mark). */
export function peakRssMbOf(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : 0;
}
