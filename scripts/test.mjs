// Runs every test file under test/ with node:test (Node 20 needs explicit file lists), after building dist/
// from the current source, so the `yona` processes the tests start run what is in src/ now.
import { readdirSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function find(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return find(path);
    return path.endsWith('.test.ts') ? [path] : [];
  });
}

const built = spawnSync(process.execPath, [join(import.meta.dirname, 'build.mjs'), '--quiet'], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);

const filter = process.argv.slice(2);
// The longest files first (the multi-node suite, then the end-to-end and fault suites), so the run does not end
// on one long file while the other workers idle.
const rank = (f) => ['test/multinode/', 'test/e2e/', 'test/faults/'].findIndex((d) => f.startsWith(d)) >>> 0;
const files = find('test')
  .filter((f) => filter.length === 0 || filter.some((s) => f.includes(s)))
  .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
// Files run side by side (TEST_CONCURRENCY, two per core by default): most of a file's time is waiting on the
// processes, sockets and timers it drives, not on the cores. On 2 cores (2026-11-28) the whole suite took 13.1 min
// with 4 files at once and 14.5 min with 6 (the cores saturated), against about 21 min with 2.
const concurrency = Number(process.env.TEST_CONCURRENCY ?? 2 * availableParallelism());
// A hang fails instead of stalling the run: on Node 20 the runner applies --test-timeout to each test file as a
// whole (docs/development.md). 15 minutes: above the slowest file (the multi-node suite), CI's whole budget.
const timeoutMs = Number(process.env.TEST_TIMEOUT_MS ?? 15 * 60_000);
const result = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    `--test-concurrency=${concurrency}`,
    `--test-timeout=${timeoutMs}`,
    '--test-reporter=spec',
    ...(process.env.TEST_TAP_FILE
      ? [
          '--test-reporter-destination=stdout',
          '--test-reporter=tap',
          `--test-reporter-destination=${process.env.TEST_TAP_FILE}`,
        ]
      : []),
    ...files,
  ],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
