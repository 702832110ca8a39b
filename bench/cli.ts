// `npm run bench -- cli [--runs N]`: start-up of the `yona` command as an operator meets it, before (the
// TypeScript source run through tsx, as every call did before the build) and after (the compiled dist/ that
// bin/yona.js runs), measured in alternating runs (N rounds, 5 by default; the order inside a round alternates
// too) on one scratch embedded store:
// - `yona --help` (target under 150 ms wall),
// - `yona admin ledger USER` (target under 300 ms wall),
// - `yona serve` until GET /healthz answers 200 (target under 1 s wall).
// Prints one JSON line: for each, the median and the fastest wall time and the median CPU time (user + system)
// of each variant, in milliseconds. CPU of the short commands is the process's own at exit; CPU of serve is read
// from /proc when healthz first answers (10 ms resolution).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { argValue } from './lib/nodes.ts';

const runs = Number(argValue('runs', '5'));
const root = join(import.meta.dirname, '..');
const scratch = mkdtempSync(join(tmpdir(), 'yona-bench-cli-'));
const cpuFile = join(scratch, 'cpu');
const dataDir = join(scratch, 'data');
const env = {
  ...process.env,
  HOME: scratch,
  YONA_DATA_DIR: dataDir,
  DATABASE_URL: '',
  YONA_HTTPS_PORT: '0',
  YONA_HTTP_PORT: '0',
  YONA_HTTPS_HOST: '127.0.0.1',
  YONA_LOG_LEVEL: 'info',
  BENCH_CPU_FILE: cpuFile,
};
const preload = ['--import', join(root, 'bench/lib/cpu-at-exit.mjs')];
const VARIANTS = {
  before: [...preload, '--import', import.meta.resolve('tsx'), join(root, 'src/cli/main.ts')],
  after: [...preload, join(root, 'bin/yona.js')],
};
type Variant = keyof typeof VARIANTS;

interface Sample {
  wallMs: number;
  cpuMs: number;
}

function yona(variant: Variant, args: string[]): Sample {
  const started = performance.now();
  const run = spawnSync(process.execPath, [...VARIANTS[variant], ...args], { env, encoding: 'utf8', cwd: scratch });
  const wallMs = performance.now() - started;
  if (run.status !== 0) throw new Error(`yona ${args.join(' ')} (${variant}) failed: ${run.stderr}`);
  return { wallMs, cpuMs: Number(readFileSync(cpuFile, 'utf8')) };
}

// CPU time of a running process from /proc/PID/stat (utime + stime, in clock ticks of 10 ms).
function cpuOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function serveReady(variant: Variant): Promise<Sample> {
  const started = performance.now();
  const child = spawn(process.execPath, [...VARIANTS[variant], 'serve'], { env, cwd: scratch, stdio: 'pipe' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let logs = '';
  child.stdout.on('data', (d) => (logs += d));
  child.stderr.on('data', (d) => (logs += d));
  try {
    for (;;) {
      const port = /"http":"[^"]*:(\d+)"/.exec(logs)?.[1];
      if (port) {
        const res = await request(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
        await res?.body.dump();
        if (res?.statusCode === 200) return { wallMs: performance.now() - started, cpuMs: cpuOf(child.pid!) };
      }
      if (child.exitCode !== null) throw new Error(`yona serve (${variant}) exited:\n${logs}`);
      await new Promise((r) => setTimeout(r, 2));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
function summary(samples: Sample[]) {
  return {
    wall_ms_median: Math.round(median(samples.map((s) => s.wallMs))),
    wall_ms_min: Math.round(Math.min(...samples.map((s) => s.wallMs))),
    cpu_ms_median: Math.round(median(samples.map((s) => s.cpuMs))),
  };
}

try {
  spawnSync(process.execPath, [join(root, 'scripts/build.mjs'), '--quiet'], { stdio: 'inherit' });
  yona('after', ['admin', 'create-account', 'bench', '--password', 'bench-password', '--credits', '5', '--new-store']);
  const cases = {
    help: (v: Variant) => Promise.resolve(yona(v, ['--help'])),
    ledger: (v: Variant) => Promise.resolve(yona(v, ['admin', 'ledger', 'bench'])),
    serve_ready: serveReady,
  };
  const samples: Record<string, Record<Variant, Sample[]>> = {};
  for (let round = 0; round < runs; round++) {
    const order: Variant[] = round % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
    for (const [name, measure] of Object.entries(cases))
      for (const variant of order) {
        samples[name] ??= { before: [], after: [] };
        samples[name][variant].push(await measure(variant));
      }
  }
  const figures = Object.fromEntries(
    Object.entries(samples).map(([name, s]) => [name, { before: summary(s.before), after: summary(s.after) }]),
  );
  console.log(
    JSON.stringify({ bench: 'cli', runs, targets_ms: { help: 150, ledger: 300, serve_ready: 1000 }, ...figures }),
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
