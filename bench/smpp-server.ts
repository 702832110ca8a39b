// `npm run bench -- smpp-server [--store postgres] [--messages 100000] [--seconds 30] [--binds 4] [--window 100]
// [--kannel-seconds 10] [--no-kannel]`: Yona's SMPP server for customers on one `yona serve` node (its carrier the
// bundled simulator in a second process, receipts after 200 ms). First the project's SMPP client: `binds`
// transmitter binds of one account with `window` submit_sm outstanding each, until `messages` are answered:
// submit_sm accepted per second, p50/p99 submit_sm_resp latency, and the node's CPU per accepted message (its
// whole work: accept, the group commit, dispatch to the carrier, receipts). Then Kannel feeding Yona: sendsms load
// (autocannon, a second process) into Kannel, whose `smsc = smpp` transceiver bind (window 100) submits to Yona:
// Kannel's accepted sendsms per second and Yona's accepted submit_sm from Kannel per second. Targets: 10,000/s
// with p99 under 20 ms on the embedded store. One JSON line.
import { cpus } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runAdminCommand } from '../src/cli/admin.ts';
import { loadConfig } from '../src/config.ts';
import { ROLES } from '../src/domain/roles.ts';
import { freePort, startKannelEsme } from '../test/helpers/kannel.ts';
import { runLoad } from './lib/load.ts';
import {
  argValue,
  openWithBenchAccount,
  peakRssMbOf,
  scratchDatabase,
  startNode,
  stopNodes,
  type BenchNode,
} from './lib/nodes.ts';
import { benchStore } from './lib/service.ts';
import { runSmppLoad } from './lib/smpp-load.ts';
import { startSmscSim } from './lib/smsc-sim.ts';

const arg = argValue;
const store = benchStore();
const messages = Number(arg('messages', '100000'));
const seconds = Number(arg('seconds', '30'));
const binds = Number(arg('binds', '4'));
const windowSize = Number(arg('window', '100'));
const kannelSeconds = Number(arg('kannel-seconds', '10'));
const withKannel = !process.argv.includes('--no-kannel');
const SMPP_PASSWORD = 'bench';
const TARGET = { accepted_per_s: 10_000, p99_ms: 20 };

/** Kannel's counters of its SMPP connection to Yona (status.txt): submits answered ok, failed, queued. */
function kannelCounters(status: string): { sent: number; failed: number; queued: number } {
  const line = status.split('\n').find((l) => l.includes('SMPP:')) ?? '';
  const num = (re: RegExp) => Number(re.exec(line)?.[1] ?? 0);
  return { sent: num(/sent: sms (\d+)/), failed: num(/failed (\d+)/), queued: num(/queued (\d+) msgs/) };
}

const sim = await startSmscSim(200);
const pgDb = store === 'postgres' ? await scratchDatabase('smpp') : undefined;
const dataDir = mkdtempSync(join(tmpdir(), 'yona-bench-smpp-'));
const smppPort = await freePort();
const env: Record<string, string> = {
  DATABASE_URL: pgDb?.url ?? '',
  YONA_SMPP_PORT: String(smppPort),
  YONA_SMPP_HOST: '127.0.0.1',
  YONA_CARRIERS_FILE: '',
  ...(pgDb ? {} : { YONA_DATA_DIR: dataDir }),
};
const nodes: BenchNode[] = [];
try {
  const credits = (messages + 1_000_000) * 2;
  const { store: db } = await openWithBenchAccount(pgDb?.url ?? '', env, credits, dataDir);
  const config = loadConfig({ ...process.env, ...env, YONA_DATA_DIR: dataDir });
  const admin = (...args: string[]) => runAdminCommand(db, config, args, () => {});
  await admin('smpp-password', 'bench', SMPP_PASSWORD);
  await admin(
    'add-carrier',
    'sink',
    '--host',
    '127.0.0.1',
    '--port',
    String(sim.port),
    '--system-id',
    'bench',
    '--password',
    'bench',
  );
  await db.close();
  const node = await startNode('node-1', ROLES.join(','), env);
  nodes.push(node);

  // Numbers ending in 9: no simulator outcome rule applies.
  const destination = (i: number) => `05${20_000_009 + (i % 5_000_000) * 10}`;
  const common = { host: '127.0.0.1', port: smppPort, systemId: 'bench', password: SMPP_PASSWORD, source: 'Yona' };
  // A short warm-up (JIT, pools), then the measured load.
  await runSmppLoad({
    ...common,
    binds,
    window: windowSize,
    messages: 2_000,
    maxSeconds: 20,
    destination,
    text: 'warm',
  });
  const cpu0 = node.cpuSeconds();
  const load = await runSmppLoad({
    ...common,
    binds,
    window: windowSize,
    messages,
    maxSeconds: seconds,
    destination: (i) => destination(i + 2_000),
    text: 'Your code is 123456. Yona SMPP server benchmark.',
  });
  const nodeCpu = node.cpuSeconds() - cpu0;

  let kannel: Record<string, unknown> | undefined;
  if (withKannel) {
    const esme = await startKannelEsme({
      port: smppPort,
      systemId: 'bench',
      password: SMPP_PASSWORD,
      window: windowSize,
      logLevel: 2,
    });
    try {
      await esme.waitOnline(30_000);
      const before = kannelCounters(await esme.status());
      const t0 = performance.now();
      const http = await runLoad({
        url: esme.sendsmsUrl({ from: 'Yona', to: '0520000009', text: 'Kannel feeding Yona over SMPP' }),
        connections: 32,
        durationSeconds: kannelSeconds,
      });
      // Kannel may still hold queued messages after the HTTP load: its submits to Yona end when its queue is empty.
      let counters = kannelCounters(await esme.status());
      let tLast = performance.now();
      const drainDeadline = Date.now() + 60_000;
      while (counters.queued > 0 && Date.now() < drainDeadline) {
        await sleep(250);
        counters = kannelCounters(await esme.status());
        tLast = performance.now();
      }
      const submitted = counters.sent - before.sent;
      kannel = {
        bind: 'transceiver',
        window: windowSize,
        sendsms_accepted_per_s: http.requests_per_s,
        sendsms_p99_ms: http.p99_ms,
        sendsms_non_2xx: http.non_2xx,
        yona_accepted_from_kannel: submitted,
        yona_accepted_from_kannel_per_s: Math.round(submitted / ((tLast - t0) / 1000)),
        refused_by_yona: counters.failed - before.failed,
        left_queued_in_kannel: counters.queued,
      };
    } finally {
      await esme.stop();
    }
  }

  const cpuUsPerMessage = load.accepted > 0 ? Math.round((nodeCpu / load.accepted) * 1e6) : 0;
  console.log(
    JSON.stringify({
      bench: 'smpp-server',
      store,
      carrier: 'yona smsc-sim (second process, receipts after 200 ms)',
      smpp_client: { ...load },
      submit_sm_accepted_per_s: load.accepted_per_s,
      submit_sm_resp_ms: { p50: load.resp_ms.p50, p99: load.resp_ms.p99 },
      node_cpu_us_per_message: cpuUsPerMessage,
      node_cpu_s: +nodeCpu.toFixed(2),
      node_peak_rss_mb: peakRssMbOf(node.child.pid!),
      cores: cpus().length,
      kannel_feeding_yona: kannel ?? 'skipped (--no-kannel)',
      targets: TARGET,
      meets_targets: load.accepted_per_s >= TARGET.accepted_per_s && load.resp_ms.p99 < TARGET.p99_ms,
    }),
  );
} finally {
  await stopNodes(nodes);
  sim.stop();
  await pgDb?.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
