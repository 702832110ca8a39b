// `npm run bench -- push [--store postgres] [--events N] [--rate R] [--seconds S]`: pushes per second to a
// loopback receiver in a second process (burst of N dlr events, target >= 5,000/s over the delivery window;
// end_to_end_per_s also counts the time to record them), and receipt-to-push latency p50/p99 (event
// created_at to the receiver's arrival time), in the burst (queueing included) and at a steady rate.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dlrFields } from '../src/domain/push-fields.ts';
import { findAccountByUsername } from '../src/store/accounts.ts';
import { insertPushRegistration, recordPushEvents, type PushEventInput } from '../src/store/push.ts';
import { createPusher } from '../src/workers/pusher.ts';
import { benchStore, peakRssMb, startBenchService } from './lib/service.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const events = arg('--events', 20_000);
const rate = arg('--rate', 2_000);
const seconds = arg('--seconds', 5);
const store = benchStore();
const env = { YONA_PUSH_ALLOW_PRIVATE: '1' };

type Message = { type: string; [k: string]: any };
const child: ChildProcess = fork(fileURLToPath(new URL('./lib/push-receiver.mjs', import.meta.url)), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const ask = (type: string) => new Promise<Message>((resolve) => {
  const on = (m: Message) => m.type === type && (child.off('message', on), resolve(m));
  child.on('message', on);
  child.send({ type });
});
const port = await new Promise<number>((resolve) => child.once('message', (m: Message) => resolve(m.port)));

const bench = await startBenchService(store, [createPusher({ env })], env);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

try {
  await bench.admin('create-account', 'benchpush', '--password', 'bench-password');
  const db = bench.service.store.db;
  const accountId = (await findAccountByUsername(db, 'benchpush'))!.id;
  await insertPushRegistration(db, { accountId, type: 'dlr', url: `http://127.0.0.1:${port}/dlr`, now: Date.now() });
  const createdAt = new Map<string, number>();
  let seq = 0;
  const record = async (n: number) => {
    const now = Date.now();
    const batch: PushEventInput[] = [];
    for (let i = 0; i < n; i++, seq++) {
      const fields = dlrFields({ externalId: `ext-${seq}`, status: 102, date: now, phone: '972501234567', operator: 'Cellcom', shipmentId: 1, timeZone: 'Asia/Jerusalem' });
      batch.push({ accountId, type: 'dlr', fields, orderKey: String(seq), now });
    }
    const ids = await db.transaction().execute((trx) => recordPushEvents(trx, batch));
    for (const id of ids) createdAt.set(String(id), now);
    bench.service.signals.notify('push');
  };
  const drain = async (total: number) => {
    const deadline = Date.now() + 120_000;
    let c: Message;
    while ((c = await ask('count')).distinct < total) {
      if (process.env.BENCH_DEBUG) process.stderr.write(`${Date.now() - t0} ${c.distinct} ${c.requests}\n`);
      if (Date.now() > deadline) throw new Error('pushes did not all arrive within 120 s');
      await sleep(20);
    }
    return ask('report');
  };
  const latencies = (arrivals: [string, number][]) =>
    arrivals.map(([id, at]) => at - createdAt.get(id)!).sort((a, b) => a - b);

  // Burst: N events recorded as fast as the store takes them, in transactions of 1,000.
  const t0 = Date.now();
  for (let done = 0; done < events; done += 1000) await record(Math.min(1000, events - done));
  const recordedMs = Date.now() - t0;
  const burst = await drain(events);
  const arrivalTimes = burst.arrivals.map(([, at]: [string, number]) => at);
  const lastArrival = Math.max(...arrivalTimes);
  const deliverySeconds = (lastArrival - Math.min(...arrivalTimes)) / 1000;
  const burstLat = latencies(burst.arrivals);
  const burstSeconds = (lastArrival - t0) / 1000;

  // Steady: `rate` events per second for `seconds`, recorded every 10 ms.
  const perTick = Math.max(1, Math.round(rate / 100));
  const paceStart = Date.now();
  let paced = 0;
  for (let tick = 0; paced < rate * seconds; tick++) {
    await record(perTick);
    paced += perTick;
    await sleep(Math.max(0, paceStart + (tick + 1) * 10 - Date.now()));
  }
  const steady = await drain(paced);
  const steadyLat = latencies(steady.arrivals);

  // Delivered per second over the delivery window (first to last arrival); end to end also counts recording.
  const pushesPerS = Math.round(events / deliverySeconds);
  console.log(JSON.stringify({
    bench: 'push', store, events,
    burst: {
      pushes_per_s: pushesPerS, end_to_end_per_s: Math.round(events / burstSeconds), seconds: Number(burstSeconds.toFixed(2)), record_ms: recordedMs,
      latency_ms: { p50: quantile(burstLat, 0.5), p99: quantile(burstLat, 0.99) }, repeats: burst.requests - events,
    },
    steady: {
      rate_per_s: rate, events: paced,
      latency_ms: { p50: quantile(steadyLat, 0.5), p99: quantile(steadyLat, 0.99), max: steadyLat.at(-1) }, repeats: steady.requests - paced,
    },
    bad_requests: burst.badContentType + steady.badContentType,
    target_pushes_per_s: 5_000, meets_target: pushesPerS >= 5_000, peak_rss_mb: await peakRssMb(),
  }));
} finally {
  await bench.close();
  child.send({ type: 'exit' });
}
