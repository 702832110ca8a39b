// `npm run bench -- accept [--store postgres] [--nodes 1,2 (accept-nodes.ts)] [--seconds N] [--connections N] [--beside-kannel]
// [--profile]`: single-recipient `sms` accepted per second over keep-alive HTTP by `yona serve` (the built service,
// in a process of its own with the api role; the load from a second process), then the time to accept one `sms`
// with 100,000 phone destinations. Targets: at least Kannel 1.4.5's accept rate on this machine (`--beside-kannel`
// measures Kannel just before and just after Yona's load, with the same load generator, connections and duration,
// and prints the ratio); 100k in < 2 s (SQLite) / < 4 s (PostgreSQL). The service's CPU is read from /proc.
// `--profile` runs the service under V8's sampling profiler, saves its .cpuprofile and prints the samples of the
// measured load by category (bench/lib/profile.ts) to stderr, the figures in the JSON line too.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { kannelAnchorDir, startKannel, type RunningKannel } from './lib/kannel.ts';
import { runLoad, type LoadOptions } from './lib/load.ts';
import { benchStore } from './lib/service.ts';
import {
  BENCH_SMS,
  benchHeaders,
  openWithBenchAccount,
  peakRssMbOf,
  scratchDatabase,
  startNode,
  stopNodes,
  type BenchNode,
} from './lib/nodes.ts';
import { budgetTable, profileByCategory, samplesBetween, withSourcesMapped, type CpuProfile } from './lib/profile.ts';

if (process.argv.includes('--nodes')) {
  await import('./accept-nodes.ts');
  process.exit(0);
}

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const seconds = arg('--seconds', 10);
const connections = arg('--connections', 50);
const kannelDir = process.argv.includes('--beside-kannel') ? kannelAnchorDir() : undefined;
const profileDir = process.argv.includes('--profile') ? mkdtempSync(join(tmpdir(), 'yona-accept-profile-')) : undefined;
const BULK_RECIPIENTS = 100_000;
const store = benchStore();

/** Kannel's accepts per second under the load Yona gets (sendsms GETs instead of `sms` POSTs). */
async function kannelRate(
  k: RunningKannel,
  load: Pick<LoadOptions, 'connections' | 'durationSeconds'>,
): Promise<number> {
  const result = await runLoad({ url: k.sendUrl, ...load });
  if (result.non_2xx > 0 || result.errors > 0) throw new Error(`Kannel refused sends: ${JSON.stringify(result)}`);
  return result.requests_per_s;
}

/** The node's group-commit counters (its /metrics): the embedded store's, or PostgreSQL's send groups. */
async function groupCounters(node: BenchNode): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${node.httpPort}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return {
    transactions: value('yona_sqlite_transactions_total'),
    commits: value('yona_sqlite_commits_total'),
    statements: value('yona_sqlite_statements_total'),
    pgGroups: value('yona_pg_send_groups_total'),
    pgSends: value('yona_pg_grouped_sends_total'),
    pgRetries: value('yona_pg_send_group_retries_total'),
  };
}

const perOne = (n: number, d: number) => (d > 0 ? Math.round((n / d) * 10) / 10 : null);
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

const dataDir = mkdtempSync(join(tmpdir(), 'yona-bench-accept-'));
const pgDb = store === 'postgres' ? await scratchDatabase('accept') : undefined;
const env: Record<string, string> = { YONA_DATA_DIR: dataDir, YONA_LOG_LEVEL: 'info', DATABASE_URL: pgDb?.url ?? '' };
const { store: db, token } = await openWithBenchAccount(pgDb?.url ?? '', env, 100_000_000, dataDir);
const nodeArgs = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-interval', '250'] : [];
let node: BenchNode | undefined;
let kannel: RunningKannel | undefined;

async function count(table: 'campaigns' | 'messages'): Promise<number> {
  const row = await db.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The table's row count once it stopped changing (two reads 100 ms apart agree). */
async function settledCount(table: 'campaigns' | 'messages'): Promise<number> {
  let last = await count(table);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = await count(table);
    if (now === last) return now;
    last = now;
  }
}

try {
  node = await startNode('accept', 'api', env, nodeArgs);
  kannel = kannelDir ? await startKannel(kannelDir) : undefined;
  const apiUrl = `http://127.0.0.1:${node.httpPort}/api`;
  const headers = benchHeaders(token);

  const probe = await request(apiUrl, { method: 'POST', headers, body: BENCH_SMS });
  const probeReply = (await probe.body.json()) as { status: number };
  if (probeReply.status !== 0) throw new Error(`probe send failed: ${JSON.stringify(probeReply)}`);

  // Warm-up of both (JIT, caches, connections), not counted.
  await runLoad({ url: apiUrl, body: BENCH_SMS, headers, connections, durationSeconds: 2 });
  if (kannel) await kannelRate(kannel, { connections, durationSeconds: 2 });
  const kannelBefore = kannel ? await kannelRate(kannel, { connections, durationSeconds: seconds }) : undefined;
  const campaignsBefore = await count('campaigns');
  const loadBefore = loadavg()[0];
  const countersBefore = await groupCounters(node);
  const cpuBefore = node.cpuSeconds();
  const loadFrom = monotonicUs();
  const load = await runLoad({ url: apiUrl, body: BENCH_SMS, headers, connections, durationSeconds: seconds });
  const loadTo = monotonicUs();
  // Requests the load generator left in flight when it stopped still finish: count once they have.
  const accepted = (await settledCount('campaigns')) - campaignsBefore;
  const cpuUsPerAccept = ((node.cpuSeconds() - cpuBefore) * 1e6) / Math.max(accepted, 1);
  const countersAfter = await groupCounters(node);
  const counted = (name: string) => countersAfter[name] - countersBefore[name];
  const kannelAfter = kannel ? await kannelRate(kannel, { connections, durationSeconds: seconds }) : undefined;
  const beside =
    kannelBefore !== undefined && kannelAfter !== undefined
      ? {
          kannel_accepts_per_s: [kannelBefore, kannelAfter],
          ratio_to_kannel: Math.round((load.requests_per_s / ((kannelBefore + kannelAfter) / 2)) * 100) / 100,
        }
      : {};
  const groups =
    store === 'sqlite'
      ? {
          transactions_per_commit: perOne(counted('transactions'), counted('commits')),
          sqlite_statements_per_send: perOne(counted('statements'), counted('transactions')),
        }
      : {
          pg_groups: counted('pgGroups'),
          sends_per_pg_group: perOne(counted('pgSends'), counted('pgGroups')),
          pg_group_fallbacks: counted('pgRetries'),
        };

  const phones = Array.from({ length: BULK_RECIPIENTS }, (_, i) => `05${String(20_000_000 + i).padStart(8, '0')}`);
  const big = JSON.stringify({
    sms: {
      user: { username: 'bench' },
      source: 'Yona',
      destinations: { phone: phones },
      message: 'Big sale today only',
    },
  });
  const messagesBefore = await count('messages');
  const started = process.hrtime.bigint();
  const res = await request(apiUrl, { method: 'POST', headers, body: big });
  const bigReply = (await res.body.json()) as { status: number; recipients?: number };
  const bulkSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  const bulkWritten = (await count('messages')) - messagesBefore;
  const peakRss = peakRssMbOf(node.child.pid!);

  // The profile is written when the service exits: its samples of the measured load, by category.
  await stopNodes([node]);
  let profiled = {};
  if (profileDir) {
    const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error(`the service wrote no profile in ${profileDir}`);
    const whole = withSourcesMapped(JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as CpuProfile);
    const budget = budgetTable(profileByCategory(samplesBetween(whole, loadFrom, loadTo)), cpuUsPerAccept);
    process.stderr.write(`CPU profile of the service: ${join(profileDir, file)}\n`);
    for (const row of budget)
      process.stderr.write(
        `${row.category.padEnd(40)} ${String(row.us).padStart(7)} us/accept ${String(row.share).padStart(5)}%\n`,
      );
    profiled = {
      profile_file: join(profileDir, file),
      profile_us_per_accept: Object.fromEntries(budget.map((r) => [r.category, r.us])),
    };
  }

  console.log(
    JSON.stringify({
      bench: 'accept',
      store,
      seconds,
      connections,
      accepts_per_s: load.requests_per_s,
      p50_ms: load.p50_ms,
      p99_ms: load.p99_ms,
      requests: load.total,
      accepted_campaigns: accepted,
      non_2xx: load.non_2xx,
      errors: load.errors,
      ...beside,
      // The service's own CPU per accepted send (all its threads; load generator excluded), and what else the
      // machine was doing.
      server_cpu_us_per_accept: Math.round(cpuUsPerAccept),
      client_cpu_us_per_request: load.client_cpu_us_per_request,
      load_avg_1m_before: Math.round(loadBefore * 100) / 100,
      ...profiled,
      ...groups,
      bulk_100k_s: Math.round(bulkSeconds * 1000) / 1000,
      bulk_status: bigReply.status,
      bulk_recipients: bigReply.recipients,
      bulk_rows_written: bulkWritten,
      target_bulk_100k_s: store === 'postgres' ? 4 : 2,
      peak_rss_mb: peakRss,
    }),
  );
} finally {
  await kannel?.stop();
  if (node) await stopNodes([node]);
  await db.close();
  await pgDb?.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
