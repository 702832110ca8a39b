// `npm run bench -- whatsapp [--store postgres] [--messages N] [--rate R] [--batch B] [--status-delay MS]`:
// WhatsApp through the Cloud API simulator from one node. `yona wa-sim` runs as a second process; the service
// (HTTP API, dispatcher, webhooks, receipts) runs in this one with a whatsapp-cloud carrier for the business number
// at 1,000 messages/s, its templates synced from the simulator. R messages/s (default 1,000) are sent as `sms` with
// "channel":"whatsapp" and the template hello_world, B recipients per request (default 10, so one request every
// B/R s), each to a different user (no user's pacing applies; numbers end in 7, outside the scripted outcomes). The
// simulator reports sent, delivered and read for each, MS apart (default 200), as signed webhooks to the service.
// Prints one JSON line:
// - send: messages/s the simulator took (first to last acceptance), the most and fewest it took in any whole
//   second, and the accept latency of the requests (p50/p99/max; target 1,000/s sustained, p99 under 50 ms);
// - statuses: signed status webhooks stored and processed per second (first received to last processed; target
//   3,000/s, three per message), and how long the last one waited;
// - the service's CPU per message (accept, dispatch, Graph request, three webhooks stored and processed; the
//   requests are sent from its process) and the simulator's, with the load average at start and end.
import { writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { Agent, request } from 'undici';
import { loadConfig } from '../src/config.ts';
import { carriersComponent } from '../src/delivery/carriers.ts';
import { ingressComponent } from '../src/delivery/ingress.ts';
import { whatsappSendingComponent } from '../src/delivery/whatsapp-sending.ts';
import { benchStore, peakRssMb, startBenchService } from './lib/service.ts';
import { startWaSim } from './lib/wa-sim.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const messages = arg('--messages', 10_000);
const rate = arg('--rate', 1_000);
const batch = arg('--batch', 10);
const statusDelay = arg('--status-delay', 200);
const store = benchStore();
const loadAtStart = loadavg().map((l) => +l.toFixed(2));
const BUSINESS = '972771000000';
const CARRIER = 'wa-bench';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
const until = async (done: () => Promise<boolean> | boolean, what: string, ms = 180_000) => {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s`);
    await sleep(100);
  }
};

const sim = await startWaSim(statusDelay);
const carriersFile = join(tmpdir(), `yona-bench-wa-carriers-${process.pid}.json`);
writeFileSync(
  carriersFile,
  JSON.stringify({
    carriers: [
      {
        protocol: 'whatsapp-cloud',
        name: CARRIER,
        businessNumber: BUSINESS,
        phoneNumberId: 'PNBENCH',
        wabaId: 'WABABENCH',
        token: sim.token,
        appSecret: sim.appSecret,
        verifyToken: 'bench-verify',
        graphUrl: sim.graphUrl,
        messagesPerSecond: 1_000,
        inFlight: 500,
      },
    ],
    routes: {},
  }),
);
const env = { YONA_CARRIERS_FILE: carriersFile };
const sending = whatsappSendingComponent();
const bench = await startBenchService(
  store,
  [carriersComponent({ config: loadConfig(env) }), ingressComponent(), sending],
  env,
);

try {
  await sim.setWebhook(`${bench.httpUrl}/webhooks/whatsapp/${CARRIER}`);
  await sending.syncNow();
  await bench.admin('create-account', 'benchwa', '--password', 'bench-password', '--credits', String(messages * 2));
  const token = (await bench.admin('create-token', 'benchwa')).at(-1)!;
  await bench.admin('whatsapp-number', 'add', 'benchwa', BUSINESS, '--carrier', CARRIER);
  const db = bench.service.store.db;

  let next = 0;
  const latencies: number[] = [];
  // At most 64 requests at once (the rest wait in the client, their wait counted in their latency), with time to
  // connect to a saturated node: fetch's pool opened a connection per waiting request and gave up after 10 s.
  const client = new Agent({ connections: 64, connectTimeout: 120_000, headersTimeout: 300_000 });
  const send = async (n: number, dryRun = false) => {
    const phones = Array.from({ length: n }, () => `9725${String(next++ * 10 + 7).padStart(8, '0')}`);
    const started = performance.now();
    const res = await request(`${bench.httpUrl}${dryRun ? '/api/test' : '/api'}`, {
      method: 'POST',
      dispatcher: client,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        sms: {
          user: { username: 'benchwa' },
          source: BUSINESS,
          channel: 'whatsapp',
          destinations: { phone: phones },
          template: { id: 'hello_world' },
        },
      }),
    });
    const reply = (await res.body.json()) as { status: number; message: string };
    if (!dryRun) latencies.push(performance.now() - started);
    return reply;
  };
  // The API sees the carrier and its templates within its coverage refresh.
  await until(async () => (await send(1, true)).status !== 5, 'the WhatsApp carrier seen by the API', 20_000);
  next = 0;

  const cpu0 = process.cpuUsage();
  const simCpu0 = sim.cpuMicros();
  const paceStart = Date.now();
  const tickMs = (batch / rate) * 1000;
  const pending: Promise<void>[] = [];
  for (let tick = 0; tick * batch < messages; tick++) {
    const n = Math.min(batch, messages - tick * batch);
    pending.push(
      send(n).then((reply) => {
        if (reply.status !== 0) throw new Error(`sms answered ${reply.status}: ${reply.message}`);
      }),
    );
    await sleep(Math.max(0, paceStart + (tick + 1) * tickMs - Date.now()));
  }
  await Promise.all(pending);
  const sendsDone = Date.now();

  const processed = async () => {
    const row = await db
      .selectFrom('ingress_events')
      .select((eb) => [
        eb.fn.countAll<number>().as('all'),
        eb.fn.count<number>('processed_at').as('done'),
        eb.fn.min<number>('received_at').as('first'),
        eb.fn.max<number>('processed_at').as('last'),
      ])
      .where('carrier', '=', CARRIER)
      .where('kind', '=', 'receipt')
      .executeTakeFirstOrThrow();
    return { all: Number(row.all), done: Number(row.done), first: Number(row.first), last: Number(row.last) };
  };
  let taken: Awaited<ReturnType<typeof sim.control.messages>> = [];
  await until(async () => (taken = await sim.control.messages()).length >= messages, `${messages} messages taken`);
  // Polled cheaply (the waiting events' partial index, the highest id): the full count runs once both say done.
  const settled = async () => {
    const row = await db
      .selectFrom('ingress_events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('processed_at', 'is', null)
      .executeTakeFirstOrThrow();
    if (Number(row.n) > 0) return false;
    const top = await db
      .selectFrom('ingress_events')
      .select((eb) => eb.fn.max<number>('id').as('id'))
      .executeTakeFirstOrThrow();
    return Number(top.id) >= 3 * messages && (await processed()).done >= 3 * messages;
  };
  await until(settled, `${3 * messages} statuses processed`);
  const cpu = process.cpuUsage(cpu0);
  const simCpu = sim.cpuMicros() - simCpu0;
  const statuses = await processed();
  const readCount = taken.filter((m) => m.statuses.some((s) => s.status === 'read')).length;

  const accepted = taken.map((m) => m.acceptedAt).sort((a, b) => a - b);
  const sendSeconds = Math.max(1, accepted.at(-1)! - accepted[0]) / 1000;
  const perSecond = new Map<number, number>();
  for (const at of accepted)
    perSecond.set(
      Math.floor((at - accepted[0]) / 1000),
      (perSecond.get(Math.floor((at - accepted[0]) / 1000)) ?? 0) + 1,
    );
  const wholeSeconds = [...perSecond.entries()].filter(([s]) => s < Math.floor(sendSeconds)).map(([, n]) => n);
  const sorted = latencies.sort((a, b) => a - b);
  const sendRate = Math.round(messages / sendSeconds);
  const statusRate = Math.round(statuses.done / (Math.max(1, statuses.last - statuses.first) / 1000));
  const p99 = +quantile(sorted, 0.99).toFixed(1);
  const failed = await db
    .selectFrom('messages')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(sql`error`, 'is not', null)
    .executeTakeFirstOrThrow();
  console.log(
    JSON.stringify({
      bench: 'whatsapp',
      store,
      messages,
      business_rate_per_s: 1_000,
      status_delay_ms: statusDelay,
      send: {
        offered_per_s: rate,
        recipients_per_request: batch,
        taken_per_s: sendRate,
        seconds: +sendSeconds.toFixed(2),
        most_in_a_second: Math.max(...wholeSeconds, 0),
        fewest_in_a_second: wholeSeconds.length ? Math.min(...wholeSeconds) : 0,
        accept_ms: {
          p50: +quantile(sorted, 0.5).toFixed(1),
          p99,
          max: +sorted.at(-1)!.toFixed(1),
        },
        offered_seconds: +((sendsDone - paceStart) / 1000).toFixed(2),
      },
      statuses: {
        stored: statuses.all,
        processed: statuses.done,
        processed_per_s: statusRate,
        seconds: +((statuses.last - statuses.first) / 1000).toFixed(2),
        last_processed_after_last_send_ms: statuses.last - sendsDone,
        messages_read_at_simulator: readCount,
      },
      messages_with_error: Number(failed.n),
      service_cpu_us_per_message: Math.round((cpu.user + cpu.system) / messages),
      simulator_cpu_us_per_message: Math.round(simCpu / messages),
      targets: { send_per_s: 1_000, accept_p99_ms: 50, statuses_per_s: 3_000 },
      meets_targets: sendRate >= 950 && p99 < 50 && statusRate >= 3_000,
      peak_rss_mb: await peakRssMb(),
      load_avg: { start: loadAtStart, end: loadavg().map((l) => +l.toFixed(2)) },
    }),
  );
} finally {
  await bench.close();
  await sim.stop();
}
