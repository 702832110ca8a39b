// `npm run bench -- e2e [--beside-kannel] [--store postgres] [--nodes N] [--messages N] [--connections N]
// [--window N] [--receipt-delay MS] [--bulk N] [--rate R] [--timeout-s S] [--keep-profile DIR]`: from the HTTP request to the customer's delivery
// report. A load generator (bench/lib/e2e-load.mjs, a second process that also receives the reports) sends
// `--messages` single-recipient `sms` requests (10,000; `--connections` in flight, 50) to the built `yona serve`
// (every role; on PostgreSQL `--nodes` of them on one database, the requests spread over them) with a `dlr` push
// registered to the receiver; Yona submits them over SMPP to the Kannel kit's SMSC sink (smsc-sink.js, a receipt
// per message after `--receipt-delay` ms, 100), receives the receipts and pushes the reports. Then one `sms` to
// `--bulk` phones (100,000; 0 skips it). `--rate R` paces the single-recipient requests at R per second (the
// latency at a given share of the maximum rate) instead of sending as fast as the connections allow. With `--beside-kannel`, Kannel 1.4.5 first does the same single-recipient
// load in the same run: `sendsms` GETs with a `dlr-url` back to the same receiver, to its own sink with the same
// receipt delay, with `max-pending-submits` = Yona's SMPP window (`--window`, 100).
// Prints one JSON line: e2e_per_s (reports received per second, from the first request to the last report),
// kannel_e2e_per_s, ratio_to_kannel, request_to_report_ms p50/p99, lost (accepted without a report by the
// deadline), pushed_twice (reports received again), Yona's CPU per message (all its threads, from /proc) and its
// split by stage from a V8 profile of the main thread (bench/lib/stages.ts), Kannel's CPU per message
// (bearerbox + smsbox), the CPU per message of the load generator and of the sink beside each gateway, the
// store engine's transactions, commits and statements per message (from the nodes' /metrics), and the load
// average before and after. `--keep-profile DIR` writes the measured phase's
// profile (sources mapped) to DIR for a closer look.
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAdminCommand } from '../src/cli/admin.ts';
import { loadConfig } from '../src/config.ts';
import { ROLES } from '../src/domain/roles.ts';
import { DELIVERY } from '../src/domain/status.ts';
import { findAccountByUsername } from '../src/store/accounts.ts';
import { insertPushRegistration } from '../src/store/push.ts';
import { anchorDir, kannelAnchorDir, startAnchorSink, startKannel } from './lib/kannel.ts';
import {
  cpuSecondsOf,
  openWithBenchAccount,
  scratchDatabase,
  startNode,
  stopNodes,
  type BenchNode,
} from './lib/nodes.ts';
import { samplesBetween, withSourcesMapped, type CpuProfile } from './lib/profile.ts';
import { benchStore } from './lib/service.ts';
import { cpuUsByStage, samplesByStage, type Stage } from './lib/stages.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const store = benchStore();
const nodeCount = store === 'postgres' ? arg('--nodes', 1) : 1;
const messages = arg('--messages', 10_000);
const connections = arg('--connections', 50);
const window = arg('--window', 100);
const receiptDelay = arg('--receipt-delay', 100);
const bulk = arg('--bulk', 100_000);
const timeoutMs = arg('--timeout-s', 180) * 1000;
const rate = arg('--rate', 0);
const besideKannel = process.argv.includes('--beside-kannel');
const keepProfileIndex = process.argv.indexOf('--keep-profile');
const keepProfileDir = keepProfileIndex >= 0 ? process.argv[keepProfileIndex + 1] : undefined;
const WARMUP = 1_000;

interface PhaseResult {
  messages: number;
  accepted: number;
  refused: number;
  refusals: Record<string, number>;
  errors: number;
  reported: number;
  lost: number;
  pushed_twice: number;
  foreign_reports: number;
  seconds_to_last_report: number;
  e2e_per_s: number;
  accepts_per_s: number;
  request_to_report_ms: { p50: number | null; p99: number | null };
  client_cpu_us_per_message: number;
}

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
const round = (n: number) => Math.round(n * 10) / 10;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The store engine's counters (yona_sqlite_*, yona_pg_*) summed over the nodes, from their /metrics. */
async function engineCounts(of: BenchNode[]): Promise<Record<string, number>> {
  const sums: Record<string, number> = {};
  for (const node of of) {
    const text = await (await fetch(`http://127.0.0.1:${node.httpPort}/metrics`)).text();
    for (const m of text.matchAll(/^yona_(sqlite|pg)_(\w+)_total(?:{[^}]*})? (\d+)/gm)) {
      const name = `${m[1]}_${m[2]}`;
      sums[name] = (sums[name] ?? 0) + Number(m[3]);
    }
  }
  return sums;
}

/** One phase of load through the load generator's process, its receiver on `receiverPort`. */
function phase(options: {
  gateway: 'yona' | 'kannel';
  urls: string[];
  n: number;
  token?: string;
  bulk?: boolean;
  /** Messages per second, paced; as fast as `connections` allow when absent. */
  rate?: number;
  receiverPort: number;
}): Promise<PhaseResult> {
  const child = fork(fileURLToPath(new URL('./lib/e2e-load.mjs', import.meta.url)), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.on('message', (m: { type: string; result?: PhaseResult; message?: string }) => {
      if (m.type === 'receiver') child.send({ type: 'go' });
      if (m.type === 'result') resolve(m.result!);
      if (m.type === 'error') reject(new Error(m.message));
    });
    child.once('exit', (code) => (code ? reject(new Error(`the load generator exited ${code}`)) : undefined));
    child.send({
      ...options,
      connections,
      rate: options.rate ?? 0,
      deliveredStatus: DELIVERY.DELIVERED,
      timeoutMs,
      // Longer than the pusher's first retry, so a report pushed twice is seen.
      settleMs: 2_000,
    });
  });
}

/** Kannel's single-recipient phase with receipts: its figures and its CPU per message. */
async function kannelPhase(
  receiverPort: number,
): Promise<{ result: PhaseResult; cpuUsPerMessage: number; sinkCpuUsPerMessage: number }> {
  const kannel = await startKannel(kannelAnchorDir(), { receipts: true, receiptDelayMs: receiptDelay, window });
  try {
    const urls = [kannel.sendUrl.split('?')[0]];
    await phase({ gateway: 'kannel', urls, n: WARMUP, receiverPort });
    const cpu = () => kannel.gatewayPids.reduce((s, pid) => s + cpuSecondsOf(pid), 0);
    const before = cpu();
    const sinkBefore = cpuSecondsOf(kannel.sinkPid);
    const result = await phase({ gateway: 'kannel', urls, n: messages, receiverPort, rate });
    return {
      result,
      cpuUsPerMessage: Math.round(((cpu() - before) * 1e6) / Math.max(result.reported, 1)),
      sinkCpuUsPerMessage: Math.round(
        ((cpuSecondsOf(kannel.sinkPid) - sinkBefore) * 1e6) / Math.max(result.reported, 1),
      ),
    };
  } finally {
    await kannel.stop();
  }
}

const loadBefore = loadavg()[0];
const receiverPort = await freePort();
const kannel = besideKannel ? await kannelPhase(receiverPort) : undefined;

const dataDir = mkdtempSync(join(tmpdir(), 'yona-bench-e2e-'));
const profileDir = mkdtempSync(join(tmpdir(), 'yona-bench-e2e-profile-'));
const pgDb = store === 'postgres' ? await scratchDatabase('e2e') : undefined;
const sink = await startAnchorSink(anchorDir(), ['--dlr', '1', '--dlr-delay-ms', String(receiptDelay)]);
const env: Record<string, string> = {
  DATABASE_URL: pgDb?.url ?? '',
  // One key for the bench's own store handle and every node (it seals the carrier's password).
  YONA_SECRET_KEY: randomBytes(32).toString('base64'),
  YONA_PUSH_ALLOW_PRIVATE: '1',
  YONA_LOG_LEVEL: 'info',
  // On SQLite the node opens the store the bench prepared; PostgreSQL nodes each keep their own data dir.
  ...(pgDb ? {} : { YONA_DATA_DIR: dataDir }),
};
const nodes: BenchNode[] = [];
try {
  const credits = (WARMUP + messages + bulk) * 2;
  const { store: db, token } = await openWithBenchAccount(pgDb?.url ?? '', env, credits, dataDir);
  const config = loadConfig({ ...process.env, ...env, YONA_DATA_DIR: dataDir });
  await runAdminCommand(
    db,
    config,
    [
      'add-carrier',
      'sink',
      '--host',
      '127.0.0.1',
      '--port',
      String(sink.port),
      '--system-id',
      'bench',
      '--password',
      'bench',
      '--window',
      String(window),
    ],
    () => {},
  );
  const accountId = (await findAccountByUsername(db.db, 'bench'))!.id;
  const receiverUrl = `http://127.0.0.1:${receiverPort}/dlr`;
  await insertPushRegistration(db.db, { accountId, type: 'dlr', url: receiverUrl, now: Date.now() });

  const profileArgs = ['--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-interval', '1000'];
  for (let k = 1; k <= nodeCount; k++) nodes.push(await startNode(`e2e-${k}`, ROLES.join(','), env, profileArgs));
  const urls = nodes.map((n) => `http://127.0.0.1:${n.httpPort}/api`);
  const cpu = () => nodes.reduce((s, n) => s + n.cpuSeconds(), 0);

  const warm = await phase({ gateway: 'yona', urls, n: WARMUP, token, receiverPort });
  if (warm.reported < warm.accepted) {
    const states = await db.db
      .selectFrom('messages')
      .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('status')
      .execute();
    throw new Error(`warm-up: ${warm.lost} reports missing (messages by status: ${JSON.stringify(states)})`);
  }
  const engineBefore = await engineCounts(nodes);
  const cpuBefore = cpu();
  const sinkCpuBefore = cpuSecondsOf(sink.child.pid!);
  const from = monotonicUs();
  const single = await phase({ gateway: 'yona', urls, n: messages, token, receiverPort, rate });
  const to = monotonicUs();
  const cpuUsPerMessage = ((cpu() - cpuBefore) * 1e6) / Math.max(single.reported, 1);
  const sinkCpuUsPerMessage = ((cpuSecondsOf(sink.child.pid!) - sinkCpuBefore) * 1e6) / Math.max(single.reported, 1);
  const engineAfter = await engineCounts(nodes);
  const perMessage = Object.fromEntries(
    Object.entries(engineAfter).map(([name, n]) => [
      name,
      Math.round(((n - (engineBefore[name] ?? 0)) / Math.max(single.reported, 1)) * 100) / 100,
    ]),
  );

  let bulkFigures = {};
  if (bulk > 0) {
    const cpuBulk = cpu();
    const b = await phase({ gateway: 'yona', urls, n: bulk, token, bulk: true, receiverPort });
    bulkFigures = {
      bulk: {
        messages: bulk,
        e2e_per_s: b.e2e_per_s,
        seconds_to_last_report: b.seconds_to_last_report,
        lost: b.lost,
        pushed_twice: b.pushed_twice,
        cpu_us_per_message: Math.round(((cpu() - cpuBulk) * 1e6) / Math.max(b.reported, 1)),
      },
    };
  }

  // The profiles are written when the nodes exit: the measured single-recipient phase's samples, by stage.
  await stopNodes(nodes);
  const byStage = new Map<Stage, number>();
  for (const file of readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile'))) {
    const whole = withSourcesMapped(JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as CpuProfile);
    const measured = samplesBetween(whole, from, to);
    if (keepProfileDir) writeFileSync(join(keepProfileDir, file), JSON.stringify(measured));
    for (const [stage, us] of samplesByStage(measured)) byStage.set(stage, (byStage.get(stage) ?? 0) + us);
  }

  const ratio = kannel ? round(single.e2e_per_s / Math.max(kannel.result.e2e_per_s, 1)) : undefined;
  console.log(
    JSON.stringify({
      bench: 'e2e',
      store,
      nodes: nodeCount,
      messages,
      connections,
      ...(rate > 0 ? { rate } : {}),
      window,
      receipt_delay_ms: receiptDelay,
      e2e_per_s: single.e2e_per_s,
      ...(kannel ? { kannel_e2e_per_s: kannel.result.e2e_per_s, ratio_to_kannel: ratio } : {}),
      request_to_report_ms: single.request_to_report_ms,
      ...(kannel ? { kannel_request_to_report_ms: kannel.result.request_to_report_ms } : {}),
      accepts_per_s: single.accepts_per_s,
      lost: single.lost,
      pushed_twice: single.pushed_twice,
      refused: single.refused,
      refusals: single.refusals,
      errors: single.errors,
      ...(kannel ? { kannel_lost: kannel.result.lost, kannel_reported_twice: kannel.result.pushed_twice } : {}),
      cpu_us_per_message: Math.round(cpuUsPerMessage),
      cpu_us_per_message_by_stage: cpuUsByStage(byStage, cpuUsPerMessage),
      store_engine_per_message: perMessage,
      ...(kannel ? { kannel_cpu_us_per_message: kannel.cpuUsPerMessage } : {}),
      // What else the machine's cores spent per message in the same phase: the load generator with its report
      // receiver (the same program for both gateways) and the SMSC sink.
      beside_cpu_us_per_message: {
        load_generator: single.client_cpu_us_per_message,
        sink: Math.round(sinkCpuUsPerMessage),
        ...(kannel
          ? {
              kannel_load_generator: kannel.result.client_cpu_us_per_message,
              kannel_sink: kannel.sinkCpuUsPerMessage,
            }
          : {}),
      },
      ...bulkFigures,
      load_avg_1m_before: round(loadBefore),
      load_avg_1m_after: round(loadavg()[0]),
    }),
  );
} finally {
  await stopNodes(nodes);
  sink.child.kill('SIGTERM');
  await pgDb?.drop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(profileDir, { recursive: true, force: true });
}
process.exit(0);
