// `npm run bench -- accept-instructions [--store postgres] [--sends N] [--warmup N] [--connections N] [--dist DIR]`: machine
// instructions the service executes per single-recipient `sms` accept on SQLite, counted by valgrind (callgrind),
// which repeat on a loaded machine where wall-clock and CPU-time rates do not. Builds dist/, starts `yona serve
// --roles api` on a scratch store under `valgrind --tool=callgrind --instr-atstart=no`, sends the warm-up from
// this process (a separate process, not counted) over keep-alive connections, switches counting on with
// `callgrind_control -i on`, sends the measured `sms`, switches it off, dumps, and prints the instructions of
// all the service's threads (JavaScript, the JIT compiler, garbage collection, SQLite) per accept. The warm-up
// is long because V8 is still compiling hot code for thousands of requests. Needs valgrind.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { BENCH_SMS, benchHeaders, scratchDatabase } from './lib/nodes.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const SENDS = arg('--sends', 2000);
const WARMUP = arg('--warmup', 5000);
const CONNECTIONS = arg('--connections', 8);
const root = fileURLToPath(new URL('../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'yona-bench-instr-'));
// `--store postgres`: the service on a scratch PostgreSQL database (TEST_DATABASE_URL's server) instead of SQLite,
// its sends in PostgreSQL send groups; the instructions counted are the node's, not the server's.
const storeIndex = process.argv.indexOf('--store');
const store = storeIndex >= 0 ? process.argv[storeIndex + 1] : 'sqlite';
const scratch = store === 'postgres' ? await scratchDatabase('instr') : undefined;
const env = { ...process.env, YONA_DATA_DIR: dir, YONA_LOG_LEVEL: 'warn', DATABASE_URL: scratch?.url ?? '' };

// `--dist DIR` measures a build kept aside (a copy of dist/ inside the checkout, for A/B runs) instead of building.
const distIndex = process.argv.indexOf('--dist');
const dist = distIndex >= 0 ? process.argv[distIndex + 1] : 'dist';
if (distIndex < 0) execFileSync(process.execPath, ['scripts/build.mjs', '--quiet'], { cwd: root, stdio: 'inherit' });
const main = join(dist, 'main.js');
const yona = (...args: string[]) =>
  execFileSync(process.execPath, [main, ...args], { cwd: root, env, encoding: 'utf8' }).trim();
yona('admin', 'create-account', '--new-store', 'bench', '--password', 'bench-password', '--credits', '100000000');
yona('admin', 'verify-sender', 'bench', 'Yona');
const token = yona('admin', 'create-token', 'bench').split('\n').at(-1)!;

/** A port free on loopback just now. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

const port = await freePort();
const outFile = join(dir, 'callgrind.out');
const service = spawn(
  'valgrind',
  [
    '--tool=callgrind',
    '--instr-atstart=no',
    '--separate-threads=yes',
    `--callgrind-out-file=${outFile}`,
    process.execPath,
    main,
    'serve',
    '--roles',
    'api',
  ],
  {
    cwd: root,
    env: {
      ...env,
      YONA_HTTP_PORT: String(port),
      YONA_HTTP_HOST: '127.0.0.1',
      YONA_HTTPS_PORT: '0',
      YONA_HTTPS_HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  },
);
let serviceErr = '';
service.stderr.on('data', (d) => {
  serviceErr += d;
});
const exited = new Promise<number | null>((resolve) => service.once('exit', resolve));

const pool = new Pool(`http://127.0.0.1:${port}`, { connections: CONNECTIONS, pipelining: 1 });
const headers = benchHeaders(token);

async function waitHealthy(): Promise<void> {
  const deadline = Date.now() + 600_000;
  for (;;) {
    if (service.exitCode !== null) throw new Error(`service exited ${service.exitCode}: ${serviceErr}`);
    try {
      const r = await pool.request({ path: '/healthz', method: 'GET' });
      await r.body.text();
      if (r.statusCode === 200) return;
    } catch {}
    if (Date.now() > deadline) throw new Error('service did not start');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** `count` sends over CONNECTIONS closed loops; each reply must be an accept. */
async function send(count: number): Promise<void> {
  let left = count;
  const loop = async () => {
    while (left > 0) {
      left--;
      const r = await pool.request({ path: '/api', method: 'POST', headers, body: BENCH_SMS });
      const reply = (await r.body.json()) as { status: number };
      if (r.statusCode !== 200 || reply.status !== 0) throw new Error(`send refused: ${JSON.stringify(reply)}`);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, loop));
}

const control = (...args: string[]) =>
  execFileSync('callgrind_control', [...args, String(service.pid)], { stdio: 'ignore' });

try {
  await waitHealthy();
  await send(WARMUP);
  control('-i', 'on');
  await send(SENDS);
  control('-i', 'off');
  control('-d');
  service.kill('SIGTERM');
  await exited;
  // The dump asked for is the files' first part, one file per thread (the dump at exit, after it, holds nothing).
  const totalOf = (file: string) => Number(/^totals:\s*(\d+)/m.exec(readFileSync(join(dir, file), 'utf8'))?.[1] ?? 0);
  const parts = readdirSync(dir).filter((f) => f.startsWith('callgrind.out.1-'));
  if (parts.length === 0) throw new Error(`no callgrind output: ${serviceErr}`);
  const instructions = parts.reduce((sum, f) => sum + totalOf(f), 0);
  // The main thread runs JavaScript, SQLite and the scavenges; the others the JIT compiler and concurrent marking,
  // whose share moves with when V8 decides to run them.
  const mainThread = totalOf('callgrind.out.1-01');
  process.stdout.write(
    `${JSON.stringify({
      bench: 'accept-instructions',
      store,
      sends: SENDS,
      warmup: WARMUP,
      connections: CONNECTIONS,
      instructions_per_accept: Math.round(instructions / SENDS),
      main_thread_instructions_per_accept: Math.round(mainThread / SENDS),
      load_average: loadavg().map((l) => Math.round(l * 10) / 10),
    })}\n`,
  );
} finally {
  await pool.close();
  if (service.exitCode === null) {
    service.kill('SIGKILL');
    await exited;
  }
  if (!process.env.BENCH_KEEP) rmSync(dir, { recursive: true, force: true });
  await scratch?.drop();
}
