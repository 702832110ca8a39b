// `npm run bench -- accept [--store postgres] [--nodes 1,2 (accept-nodes.ts)] [--seconds N] [--connections N] [--beside-kannel]
// [--profile]`: single-recipient
// `sms` accepted per second over keep-alive HTTP (load from a second process), then the time to accept one `sms`
// with 100,000 phone destinations. Targets: >= 10,000/s on SQLite, set as Kannel 1.4.5's accept rate on this
// machine (`--beside-kannel` measures Kannel just before and just after Yona's load, with the same load generator,
// connections and duration, and prints the ratio); 100k in < 2 s (SQLite) / < 4 s (PostgreSQL). `--profile` samples
// the service's main thread during the measured load, saves the .cpuprofile and prints its time per accept by
// category (bench/lib/profile.ts) to stderr, the figures in the JSON line too.
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { kannelAnchorDir, startKannel, type RunningKannel } from './lib/kannel.ts';
import { runLoad, type LoadOptions } from './lib/load.ts';
import { groupCommitStats } from '../src/store/group-commit.ts';
import { benchStore, peakRssMb, startBenchService } from './lib/service.ts';
import { budgetTable, profileByCategory, startProfile } from './lib/profile.ts';

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
const BULK_RECIPIENTS = 100_000;
const store = benchStore();
const bench = await startBenchService(store);
const kannel = kannelDir ? await startKannel(kannelDir) : undefined;

/** Kannel's accepts per second under the load Yona gets (sendsms GETs instead of `sms` POSTs). */
async function kannelRate(
  k: RunningKannel,
  load: Pick<LoadOptions, 'connections' | 'durationSeconds'>,
): Promise<number> {
  const result = await runLoad({ url: k.sendUrl, ...load });
  if (result.non_2xx > 0 || result.errors > 0) throw new Error(`Kannel refused sends: ${JSON.stringify(result)}`);
  return result.requests_per_s;
}

async function count(table: 'campaigns' | 'messages'): Promise<number> {
  const row = await bench.service.store.db
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
  await bench.admin('create-account', 'bench', '--password', 'bench-password', '--credits', '100000000');
  await bench.admin('verify-sender', 'bench', 'Yona');
  const token = (await bench.admin('create-token', 'bench')).at(-1)!;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const single = JSON.stringify({
    sms: {
      user: { username: 'bench' },
      source: 'Yona',
      destinations: { phone: '0501234567' },
      message: 'Your code is 123456',
    },
  });

  const probe = await request(`${bench.httpUrl}/api`, { method: 'POST', headers, body: single });
  const probeReply = (await probe.body.json()) as { status: number };
  if (probeReply.status !== 0) throw new Error(`probe send failed: ${JSON.stringify(probeReply)}`);

  // Warm-up of both (JIT, caches, connections), not counted.
  await runLoad({ url: `${bench.httpUrl}/api`, body: single, headers, connections, durationSeconds: 2 });
  if (kannel) await kannelRate(kannel, { connections, durationSeconds: 2 });
  const kannelBefore = kannel ? await kannelRate(kannel, { connections, durationSeconds: seconds }) : undefined;
  const campaignsBefore = await count('campaigns');
  const loadBefore = loadavg()[0];
  const cpuBefore = process.cpuUsage();
  const groupBefore = { ...groupCommitStats };
  const sendGroups = bench.service.store.sendGroups?.stats;
  const pgGroupsBefore = sendGroups ? { ...sendGroups } : undefined;
  const profiler = process.argv.includes('--profile') ? await startProfile() : undefined;
  const load = await runLoad({
    url: `${bench.httpUrl}/api`,
    body: single,
    headers,
    connections,
    durationSeconds: seconds,
  });
  const cpu = process.cpuUsage(cpuBefore);
  const profileFile = join(tmpdir(), `yona-accept-${store}-${process.pid}.cpuprofile`);
  const profile = profiler ? await profiler.stop(profileFile) : undefined;
  const commits = groupCommitStats.commits - groupBefore.commits;
  const pgGroups =
    sendGroups && pgGroupsBefore
      ? {
          pg_groups: sendGroups.groups - pgGroupsBefore.groups,
          sends_per_pg_group:
            Math.round(
              ((sendGroups.sends - pgGroupsBefore.sends) / Math.max(sendGroups.groups - pgGroupsBefore.groups, 1)) * 10,
            ) / 10,
          pg_group_fallbacks: sendGroups.fallbacks - pgGroupsBefore.fallbacks,
        }
      : {};
  const statementsPerSend =
    groupCommitStats.transactions > groupBefore.transactions
      ? Math.round(
          ((groupCommitStats.statements - groupBefore.statements) /
            (groupCommitStats.transactions - groupBefore.transactions)) *
            10,
        ) / 10
      : null;
  const transactionsPerCommit =
    commits > 0 ? Math.round(((groupCommitStats.transactions - groupBefore.transactions) / commits) * 10) / 10 : null;
  // Requests the load generator left in flight when it stopped still finish here: count once they have.
  const accepted = (await settledCount('campaigns')) - campaignsBefore;
  const budget = profile
    ? budgetTable(profileByCategory(profile), (cpu.user + cpu.system) / Math.max(accepted, 1))
    : undefined;
  if (budget) {
    process.stderr.write(`CPU profile of the service during the load: ${profileFile}\n`);
    for (const row of budget)
      process.stderr.write(
        `${row.category.padEnd(40)} ${String(row.us).padStart(7)} us/accept ${String(row.share).padStart(5)}%\n`,
      );
  }
  const kannelAfter = kannel ? await kannelRate(kannel, { connections, durationSeconds: seconds }) : undefined;
  const beside =
    kannelBefore !== undefined && kannelAfter !== undefined
      ? {
          kannel_accepts_per_s: [kannelBefore, kannelAfter],
          ratio_to_kannel: Math.round((load.requests_per_s / ((kannelBefore + kannelAfter) / 2)) * 100) / 100,
        }
      : {};

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
  const res = await request(`${bench.httpUrl}/api`, { method: 'POST', headers, body: big });
  const bigReply = (await res.body.json()) as { status: number; recipients?: number };
  const bulkSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  const bulkWritten = (await count('messages')) - messagesBefore;

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
      // The service's own CPU per accepted send (load generator excluded), and what else the machine was doing.
      server_cpu_us_per_accept: Math.round((cpu.user + cpu.system) / Math.max(accepted, 1)),
      client_cpu_us_per_request: load.client_cpu_us_per_request,
      load_avg_1m_before: Math.round(loadBefore * 100) / 100,
      ...(budget
        ? {
            profile_file: profileFile,
            profile_us_per_accept: Object.fromEntries(budget.map((r) => [r.category, r.us])),
          }
        : {}),
      ...(store === 'sqlite'
        ? { transactions_per_commit: transactionsPerCommit, sqlite_statements_per_send: statementsPerSend }
        : pgGroups),
      bulk_100k_s: Math.round(bulkSeconds * 1000) / 1000,
      bulk_status: bigReply.status,
      bulk_recipients: bigReply.recipients,
      bulk_rows_written: bulkWritten,
      target_accepts_per_s: 10_000,
      target_bulk_100k_s: store === 'postgres' ? 4 : 2,
      peak_rss_mb: await peakRssMb(),
    }),
  );
} finally {
  await kannel?.stop();
  await bench.close();
}
