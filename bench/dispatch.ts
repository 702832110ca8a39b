// `npm run bench -- dispatch [--store postgres] [--nodes 1,2 (dispatch-nodes.ts)] [--carriers 2 --kill-one
// (dispatch-failover.ts)] [--recipients N] [--binds N] [--window N] [--lanes N] [--batch N] [--sink kannel]`:
// one HTTP sms to N recipients (100,000), dispatched over SMPP to an SMSC in a second process (`yona smsc-sim`,
// receipts after 200 ms; or the Kannel comparison's smsc-sink.js with --sink kannel), until the last receipt
// is stored. Prints one JSON line: submit_sm/s (first to last submit; target >= 10,000/s), end to end from the
// first HTTP request to the last receipt stored (target >= 5,000 messages/s), peak RSS (target < 400 MB).
import { readFileSync } from 'node:fs';
if (process.argv.includes('--nodes')) {
  await import('./dispatch-nodes.ts');
  process.exit(0);
}
if (process.argv.includes('--carriers')) {
  await import('./dispatch-failover.ts');
  process.exit(0);
}
import { cpus } from 'node:os';
import { carriersComponent } from '../src/delivery/carriers.ts';
import { anchorDir, startAnchorSink } from './lib/kannel.ts';
import { benchStore, peakRssMb, startBenchService } from './lib/service.ts';
import { simCarrier, startSmscSim } from './lib/smsc-sim.ts';
import { loadConfig } from '../src/config.ts';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const recipients = Number(arg('recipients', '100000'));
const binds = Number(arg('binds', '2'));
const windowSize = Number(arg('window', '200'));
const lanes = Number(arg('lanes', '2'));
const batch = Number(arg('batch', '1000'));
const sink = arg('sink', 'yona') === 'kannel' ? 'kannel' : 'yona';
const store = benchStore();

// Starts the SMSC in a second process; resolves with its SMPP port once it listens, and how to stop it.
async function startSink(): Promise<{ port: number; stop(): void }> {
  if (sink === 'yona') return startSmscSim(200);
  const { child, port } = await startAnchorSink(anchorDir(), ['--dlr', '1', '--dlr-delay-ms', '200']);
  return { port, stop: () => child.kill('SIGTERM') };
}

// Machine-wide busy CPU seconds so far (other work on the machine skews the figures; it is reported).
function machineBusySeconds(): number {
  const [, user, nice, system, , , irq, softirq] = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]
    .trim()
    .split(/\s+/)
    .map(Number);
  return (user + nice + system + irq + softirq) / 100;
}

// Waits (up to 60 s) for the machine to be nearly idle (< 15% busy over a second), like the Kannel runner.
async function waitIdle(): Promise<boolean> {
  for (let i = 0; i < 60; i++) {
    const before = machineBusySeconds();
    await new Promise((r) => setTimeout(r, 1000));
    if ((machineBusySeconds() - before) / cpus().length < 0.15) return true;
  }
  return false;
}

const smsc = await startSink();
const component = carriersComponent({
  config: loadConfig({}),
  settings: { lanes, batchSize: batch },
  setup: { carriers: [simCarrier(smsc.port, { name: 'sink', binds, windowSize })], routes: [] },
});
const bench = await startBenchService(store, [component]);
try {
  await bench.admin('create-account', 'bench', '--password', 'bench-password', '--credits', String(recipients));
  const token = (await bench.admin('create-token', 'bench')).at(-1)!;
  await bench.admin('verify-sender', 'bench', 'Yona');
  const runtime = component.runtime()!;
  // Numbers ending in 9: no simulator outcome rule applies, so every one is delivered with a receipt.
  const phones = Array.from({ length: recipients }, (_, i) => `05${20_000_009 + i * 10}`);
  const body = JSON.stringify({
    sms: {
      user: { username: 'bench' },
      source: 'Yona',
      destinations: { phone: phones },
      message: 'Your code is 123456. Yona dispatch benchmark.',
    },
  });

  let firstSubmit = 0;
  let lastSubmit = 0;
  let lastReceipt = 0;
  const sampler = setInterval(() => {
    const t = performance.now();
    const submitted = runtime.dispatcher.stats.accepted;
    if (!firstSubmit && submitted > 0) firstSubmit = t;
    if (!lastSubmit && submitted >= recipients) lastSubmit = t;
  }, 5);
  const idle = await waitIdle();
  const busy0 = machineBusySeconds();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const res = await fetch(`${bench.httpUrl}/api`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
  });
  const reply = (await res.json()) as { status: number; message: string };
  const accepted = performance.now();
  if (reply.status !== 0) throw new Error(`sms answered ${reply.status}: ${reply.message}`);
  const deadline = Date.now() + 300_000;
  while (runtime.receipts.stats.changed < recipients) {
    if (process.env.BENCH_DEBUG)
      console.error(JSON.stringify({ d: runtime.dispatcher.stats, r: runtime.receipts.stats }));
    if (Date.now() > deadline)
      throw new Error(
        `timed out: ${JSON.stringify({ dispatcher: runtime.dispatcher.stats, receipts: runtime.receipts.stats })}`,
      );
    await new Promise((r) => setTimeout(r, process.env.BENCH_DEBUG ? 1000 : 5));
  }
  lastReceipt = performance.now();
  clearInterval(sampler);
  const cpu = process.cpuUsage(cpu0);
  const machineBusy = machineBusySeconds() - busy0;
  const submitSeconds = (lastSubmit - firstSubmit) / 1000;
  const e2eSeconds = (lastReceipt - t0) / 1000;
  const figures = {
    bench: 'dispatch',
    store,
    sink: sink === 'kannel' ? 'kannel smsc-sink.js (second process)' : 'yona smsc-sim (second process)',
    recipients,
    binds,
    window: windowSize,
    lanes,
    batch,
    accept_ms: Math.round(accepted - t0),
    submit_sm_per_s: Math.round(recipients / submitSeconds),
    submit_seconds: +submitSeconds.toFixed(2),
    e2e_messages_per_s: Math.round(recipients / e2eSeconds),
    e2e_seconds: +e2eSeconds.toFixed(2),
    peak_rss_mb: await peakRssMb(),
    cpu_s: {
      service: +((cpu.user + cpu.system) / 1e6).toFixed(2),
      machine_busy: +machineBusy.toFixed(2),
      cores: cpus().length,
      idle_before_start: idle,
    },
    dispatcher: runtime.dispatcher.stats,
    receipts: { ...runtime.receipts.stats },
    targets: { submit_sm_per_s: 10_000, e2e_messages_per_s: 5_000, peak_rss_mb: 400 },
  };
  console.log(
    JSON.stringify({
      ...figures,
      meets_targets:
        figures.submit_sm_per_s >= 10_000 && figures.e2e_messages_per_s >= 5_000 && figures.peak_rss_mb < 400,
    }),
  );
} finally {
  await bench.close();
  smsc.stop();
}
