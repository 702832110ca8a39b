// `npm run bench -- push [--store postgres] [--events N] [--rate R] [--seconds S] [--receipt-delay MS]`: dlr pushes
// driven by real delivery receipts: HTTP sms -> SMPP -> `yona smsc-sim` (a second process, receipts MS after each
// submit, default 200 as bundled) -> deliver_sm -> the receipts worker (batch, commit) -> the pusher -> a loopback
// receiver (a third process). Prints one JSON line:
// - backlog: N dlr events queued by real receipts while the pusher is stopped, then pushed: pushes/s over the
//   delivery window (first to last arrival; target >= 5,000/s), the pusher's own rate;
// - burst: one sms to N recipients with the pusher running: pushes/s beside the receipts/s that feed them, and
//   receipt_received_to_push_ms p50/p99 (queueing behind the burst included);
// - steady: R messages/s for S seconds, sent every 10 ms: receipt_received_to_push_ms p50/p99/max.
// receipt_received_to_push_ms runs from when the SMPP connector hands the parsed receipt to the receipts worker
// (bench/lib/receipt-stamps.ts) to the receiver's arrival time (Date.now() in both processes). Each phase has the
// service's CPU per unit (the sms requests are sent from its process: a request per 10 ms in the steady phase),
// and the line ends with the load average at start and end (other work on the machine skews every figure).
import { fork, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { findAccountByUsername } from '../src/store/accounts.ts';
import { insertPushRegistration } from '../src/store/push.ts';
import { carriersComponent } from '../src/delivery/carriers.ts';
import { createPusher } from '../src/delivery/pusher.ts';
import { stampReceipts } from './lib/receipt-stamps.ts';
import { benchStore, peakRssMb, startBenchService } from './lib/service.ts';
import { startSmscSim } from './lib/smsc-sim.ts';
import { loadConfig } from '../src/config.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const events = arg('--events', 20_000);
const rate = arg('--rate', 2_000);
const seconds = arg('--seconds', 5);
const receiptDelay = arg('--receipt-delay', 200);
const store = benchStore();
const env = { YONA_PUSH_ALLOW_PRIVATE: '1' };
const loadAtStart = loadavg().map((l) => +l.toFixed(2));

type Message = { type: string; [k: string]: any };
const child: ChildProcess = fork(fileURLToPath(new URL('./lib/push-receiver.mjs', import.meta.url)), [], {
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const ask = (type: string) =>
  new Promise<Message>((resolve) => {
    const on = (m: Message) => m.type === type && (child.off('message', on), resolve(m));
    child.on('message', on);
    child.send({ type });
  });
const port = await new Promise<number>((resolve) => child.once('message', (m: Message) => resolve(m.port)));

const smsc = await startSmscSim(receiptDelay);
const carriers = carriersComponent({ config: loadConfig({}), setup: { carriers: [smsc.carrier()], routes: [] } });
const pusher = createPusher({ config: loadConfig(env) });
let pusherStarted = false;
const bench = await startBenchService(store, [carriers], env);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
const until = async (done: () => Promise<boolean> | boolean, what: string, ms = 120_000) => {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s`);
    await sleep(10);
  }
};

try {
  const total = 2 * events + rate * seconds;
  await bench.admin('create-account', 'benchpush', '--password', 'bench-password', '--credits', String(total));
  const token = (await bench.admin('create-token', 'benchpush')).at(-1)!;
  await bench.admin('verify-sender', 'benchpush', 'Yona');
  const db = bench.service.store.db;
  const accountId = (await findAccountByUsername(db, 'benchpush'))!.id;
  await insertPushRegistration(db, { accountId, type: 'dlr', url: `http://127.0.0.1:${port}/dlr`, now: Date.now() });
  const runtime = carriers.runtime()!;
  const stamps = stampReceipts(runtime.receipts);

  // Numbers ending in 9: no simulator outcome rule applies, so each gets one DELIVRD receipt (one dlr event).
  let next = 0;
  let sent = 0;
  const send = async (n: number) => {
    const phones = Array.from({ length: n }, () => `05${20_000_009 + next++ * 10}`);
    const res = await fetch(`${bench.httpUrl}/api`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        sms: {
          user: { username: 'benchpush' },
          source: 'Yona',
          destinations: { phone: phones },
          message: 'Yona push benchmark',
        },
      }),
    });
    const reply = (await res.json()) as { status: number; message: string };
    if (reply.status !== 0) throw new Error(`sms answered ${reply.status}: ${reply.message}`);
    sent += n;
  };
  const receiptsIn = () => until(() => runtime.receipts.stats.changed >= sent, `receipts for ${sent} messages`);
  // Waits until every message sent so far was pushed; the receiver's report (then reset) has first arrivals.
  let drained = 0;
  const drain = async () => {
    await until(async () => (await ask('count')).distinct >= sent - drained, `${sent - drained} pushes`);
    drained = sent;
    return ask('report');
  };
  const window = (arrivals: [string, number][]) => {
    let first = Infinity;
    let last = -Infinity;
    for (const [, at] of arrivals) [first, last] = [Math.min(first, at), Math.max(last, at)];
    return { first, last, seconds: Math.max(1, last - first) / 1000 };
  };
  const latency = async (arrivals: [string, number][]) => {
    const sorted = await stamps.latencies(db, arrivals);
    return { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), max: sorted.at(-1) };
  };
  // The service's CPU per message (accept, dispatch, receipt and push together), in microseconds.
  const perMessage = (cpu: NodeJS.CpuUsage, n: number) => Math.round((cpu.user + cpu.system) / n);
  // Receipts that came before their submit_sm_resp was recorded (applied by a later re-match), since `from`.
  const early = (from: number) => runtime.receipts.stats.pending - from;

  // Backlog: the dlr events of N real receipts wait in the store; then the pusher starts and drains them.
  await send(events);
  await receiptsIn();
  const cpu0 = process.cpuUsage();
  const started = Date.now();
  await pusher.start(bench.service);
  pusherStarted = true;
  const backlog = await drain();
  const cpu = process.cpuUsage(cpu0);
  const backlogWindow = window(backlog.arrivals);

  // Burst: one sms to N recipients with the pusher running.
  const burstFrom = stamps.at.size;
  const burstEarly = runtime.receipts.stats.pending;
  const burstCpu0 = process.cpuUsage();
  await send(events);
  const burst = await drain();
  const burstCpu = process.cpuUsage(burstCpu0);
  const burstWindow = window(burst.arrivals);

  // Steady: `rate` messages per second, one sms every 10 ms.
  const perTick = Math.max(1, Math.round(rate / 100));
  const steadyFrom = sent;
  const steadyEarly = runtime.receipts.stats.pending;
  const steadyCpu0 = process.cpuUsage();
  const paceStart = Date.now();
  for (let tick = 0; sent - steadyFrom < rate * seconds; tick++) {
    await send(perTick);
    await sleep(Math.max(0, paceStart + (tick + 1) * 10 - Date.now()));
  }
  const steady = await drain();
  const steadyCpu = process.cpuUsage(steadyCpu0);

  const pushesPerS = Math.round(events / backlogWindow.seconds);
  console.log(
    JSON.stringify({
      bench: 'push',
      store,
      receipt_delay_ms: receiptDelay,
      backlog: {
        events,
        pushes_per_s: pushesPerS,
        seconds: +backlogWindow.seconds.toFixed(2),
        from_pusher_start_per_s: Math.round(events / ((backlogWindow.last - started) / 1000)),
        service_cpu_us_per_push: perMessage(cpu, events),
        repeats: backlog.requests - events,
      },
      burst: {
        events,
        pushes_per_s: Math.round(events / burstWindow.seconds),
        receipts_per_s: stamps.rateSince(burstFrom),
        receipt_received_to_push_ms: await latency(burst.arrivals),
        early_receipts: early(burstEarly),
        service_cpu_us_per_message: perMessage(burstCpu, events),
        repeats: burst.requests - events,
      },
      steady: {
        rate_per_s: rate,
        events: sent - steadyFrom,
        receipt_received_to_push_ms: await latency(steady.arrivals),
        early_receipts: early(steadyEarly),
        service_cpu_us_per_message: perMessage(steadyCpu, sent - steadyFrom),
        repeats: steady.requests - (sent - steadyFrom),
      },
      bad_requests: backlog.badContentType + burst.badContentType + steady.badContentType,
      target_pushes_per_s: 5_000,
      meets_target: pushesPerS >= 5_000,
      peak_rss_mb: await peakRssMb(),
      load_avg: { start: loadAtStart, end: loadavg().map((l) => +l.toFixed(2)) },
    }),
  );
} finally {
  if (pusherStarted) await pusher.stop();
  await bench.close();
  smsc.stop();
  child.send({ type: 'exit' });
}
