// `npm run bench -- accept --store postgres --nodes 1,2 [--group-lanes 0,1,2] [--seconds N] [--connections 128]`: single-recipient
// `sms` of one account accepted per second by `yona serve` processes with the api role on one PostgreSQL database.
// For each setting of YONA_PG_GROUP_LANES (0: each send commits alone) and each node count, on a fresh database:
// the load (autocannon, one child process per node, the connections split between them) for N seconds after a
// warm-up, then the accepted sends counted in the database. Target: >= 3,000/s over 2 nodes. One JSON line.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { budgetTable, profileByCategory, withSourcesMapped, type CpuProfile } from './lib/profile.ts';
import { runLoad, type LoadResult } from './lib/load.ts';
import {
  argValue,
  BENCH_SMS,
  benchHeaders,
  openWithBenchAccount,
  postgresCpuBetween,
  postgresCpuSeconds,
  scratchDatabase,
  startNode,
  stopNodes,
  type BenchNode,
} from './lib/nodes.ts';

const arg = argValue;
const counts = arg('nodes', '1,2')
  .split(',')
  .map(Number)
  .filter((n) => n >= 1);
const seconds = Number(arg('seconds', '10'));
const connections = Number(arg('connections', '128'));
const laneSettings = arg('group-lanes', '0,1,2').split(',').map(Number);
// `--profile-dir DIR`: each node writes a V8 CPU profile (.cpuprofile) of its whole life there when it stops, and
// the run's line gets each node's samples split by category of work (`profile_share_pct`).
const profileDir = arg('profile-dir', '');
const nodeArgs = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
const TARGET = 3_000;

async function runWith(count: number, lanes: number): Promise<Record<string, unknown>> {
  const db = await scratchDatabase(`accept${count}`);
  const env: Record<string, string> = { DATABASE_URL: db.url, YONA_PG_GROUP_LANES: String(lanes) };
  const { store, token } = await openWithBenchAccount(db.url, env, 100_000_000);
  const nodes: BenchNode[] = [];
  try {
    // API nodes only: the dispatcher's work would compete for the same cores and is measured by bench dispatch.
    for (let i = 1; i <= count; i++) nodes.push(await startNode(`node-${i}`, 'api', env, nodeArgs));
    const headers = benchHeaders(token);
    const loadOn = (durationSeconds: number) =>
      Promise.all(
        nodes.map((n) =>
          runLoad({
            url: `http://127.0.0.1:${n.httpPort}/api`,
            body: BENCH_SMS,
            headers,
            connections: Math.ceil(connections / count),
            durationSeconds,
          }),
        ),
      );
    await loadOn(2); // warm-up: JIT, prepared statements, pools
    const settledCounts = async () => {
      const read = async () => {
        const { rows } = await sql<{ campaigns: number; credits: number }>`
          select (select count(id) from campaigns) as campaigns,
                 (select credits from accounts where username = 'bench') as credits`.execute(store.db);
        return { campaigns: Number(rows[0].campaigns), credits: Number(rows[0].credits) };
      };
      let last = await read();
      for (let i = 0; i < 100; i++) {
        await new Promise((r) => setTimeout(r, 200));
        const next = await read();
        if (next.campaigns === last.campaigns && next.credits === last.credits) return next;
        last = next;
      }
      return last;
    };
    const campaigns = async () =>
      Number(
        (
          await store.db
            .selectFrom('campaigns')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    // Groups committed and sends in them over all nodes (their /metrics), for sends per group.
    const groupCounts = async () => {
      let groups = 0;
      let sends = 0;
      for (const n of nodes) {
        const text = await (await fetch(`http://127.0.0.1:${n.httpPort}/metrics`)).text();
        const value = (name: string) => Number(new RegExp(`^${name}\\{[^}]*\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
        groups += value('yona_pg_send_groups_total');
        sends += value('yona_pg_grouped_sends_total');
      }
      return { groups, sends };
    };
    const groups0 = await groupCounts();
    const before = await campaigns();
    const cpu0 = nodes.map((n) => n.cpuSeconds());
    const pgCpu0 = postgresCpuSeconds(db.name);
    const t0 = performance.now();
    const loads: LoadResult[] = await loadOn(seconds);
    const elapsed = (performance.now() - t0) / 1000;
    const pgCpu = postgresCpuBetween(pgCpu0, postgresCpuSeconds(db.name));
    const nodeCpu = nodes.map((n, i) => n.cpuSeconds() - cpu0[i]);
    // The load generators stop without waiting for their last requests: the sends in flight still commit. The
    // campaigns and the balance are read together (one snapshot) once two reads in a row agree.
    const settled = await settledCounts();
    const groups1 = await groupCounts();
    const accepted = settled.campaigns - before;
    return {
      group_lanes: lanes,
      nodes: count,
      accepts_per_s: Math.round(loads.reduce((s, l) => s + l.requests_per_s, 0)),
      accepted_in_db_per_s: Math.round(accepted / elapsed),
      // Each node's load generator measures its own latencies: the worst of them.
      p50_ms: Math.max(...loads.map((l) => l.p50_ms)),
      p99_ms: Math.max(...loads.map((l) => l.p99_ms)),
      non_2xx: loads.reduce((s, l) => s + l.non_2xx, 0),
      errors: loads.reduce((s, l) => s + l.errors, 0),
      node_cpu_us_per_accept: nodeCpu.map((s) => Math.round((s * 1e6) / Math.max(accepted / count, 1))),
      sends_per_group: +((groups1.sends - groups0.sends) / Math.max(groups1.groups - groups0.groups, 1)).toFixed(1),
      postgres_cpu_us_per_accept: Math.round((pgCpu * 1e6) / Math.max(accepted, 1)),
      balance_matches: settled.credits === 100_000_000 - settled.campaigns,
    };
  } finally {
    await stopNodes(nodes);
    await store.close();
    await db.drop();
  }
}

// Each node's profile written since `since` (ms), split by category of work: shares of its busy samples over
// its whole life (start-up included), with the rules of the SQLite profile (bench/lib/profile.ts).
function profilesByCategory(since: number): Array<Record<string, number>> {
  return readdirSync(profileDir)
    .filter((f) => f.endsWith('.cpuprofile') && statSync(join(profileDir, f)).mtimeMs >= since)
    .map((f) => {
      const profile = withSourcesMapped(JSON.parse(readFileSync(join(profileDir, f), 'utf8')) as CpuProfile);
      return Object.fromEntries(budgetTable(profileByCategory(profile), 0).map((r) => [r.category, r.share]));
    });
}

const runs: Array<Record<string, unknown>> = [];
for (const lanes of laneSettings)
  for (const count of counts) {
    const started = Date.now();
    const run = await runWith(count, lanes);
    if (profileDir) run.profile_share_pct = profilesByCategory(started);
    runs.push(run);
  }
const best = Math.max(...runs.filter((r) => r.nodes === 2).map((r) => r.accepts_per_s as number));
console.log(
  JSON.stringify({
    bench: 'accept',
    store: 'postgres',
    seconds,
    connections,
    runs,
    target_accepts_per_s_2_nodes: TARGET,
    ...(Number.isFinite(best) ? { met: best >= TARGET } : {}),
  }),
);
