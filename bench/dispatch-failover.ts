// `npm run bench -- dispatch --carriers 2 --kill-one [--recipients N] [--kill-at F] [--store postgres]`:
// two `yona smsc-sim` carriers (second processes) on one route in failover order ("sim-a,sim-b"), one HTTP sms
// to N recipients (10,000), run twice in one invocation: once with no failure, once with sim-a killed (-9) when
// F (0.3) of the campaign was accepted by the carriers. Prints one JSON line with, for each run: messages
// delivered (receipts stored), duplicates (copies beyond the first of a destination in the sims' received lists:
// the surviving sims' from the smsc-sim-received.json each leaves when stopped at the end, the killed sim's read
// over its control channel as it is killed, plus what it answered after that), seconds from the request to the last receipt stored; and the ratios of the failure run to the other.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadavg } from 'node:os';
import { carriersComponent } from '../src/delivery/carriers.ts';
import { loadConfig } from '../src/config.ts';
import { benchStore, startBenchService } from './lib/service.ts';
import { startSmscSim, type SmscSimProcess } from './lib/smsc-sim.ts';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const carriers = Number(arg('carriers', '2'));
const recipients = Number(arg('recipients', '10000'));
const killAt = Number(arg('kill-at', '0.3'));
const killOne = process.argv.includes('--kill-one');
const store = benchStore();
if (!Number.isInteger(carriers) || carriers < 2 || carriers > 8) throw new Error('--carriers must be 2 to 8');
if (!Number.isInteger(recipients) || recipients < 1) throw new Error('--recipients must be a positive whole number');
if (!(killAt > 0 && killAt < 1)) throw new Error('--kill-at must be a fraction between 0 and 1');
/** After the last receipt, how long nothing more arrives before a run is over. */
const QUIET_MS = 3000;
const execFileAsync = promisify(execFile);
const RECEIPT_DELAY_MS = 200;

interface RunFigures {
  delivered: number;
  duplicates: number;
  last_receipt_s: number;
  received_by: Record<string, number>;
  /** Accepted by the killed carrier, whose receipts never came (status -1 until the receipt window ends). */
  not_receipted: number;
  failed_over: number;
}

type Received = { destination: string };

// The killed sim's list, read over its control channel by a helper process that kills the sim (-9) as soon as the
// answer starts (the simulator takes no SMPP traffic while it writes the list out, so little arrives in between).
async function readListAndKill(sim: SmscSimProcess): Promise<Received[]> {
  const helper = join(import.meta.dirname, 'lib/smsc-list-and-kill.mjs');
  const { stdout } = await execFileAsync(process.execPath, [helper, sim.controlUrl, String(sim.child.pid)], {
    maxBuffer: 1 << 30,
  });
  return (JSON.parse(stdout) as { messages: Received[] }).messages;
}

async function run(kill: boolean): Promise<RunFigures> {
  const names = Array.from({ length: carriers }, (_, i) => `sim-${String.fromCharCode(97 + i)}`);
  const sims = await Promise.all(names.map(() => startSmscSim(RECEIPT_DELAY_MS)));
  const component = carriersComponent({
    config: loadConfig({}),
    settings: {},
    setup: {
      carriers: sims.map((sim, i) => sim.carrier({ name: names[i], reconnectBaseMs: 200, reconnectMaxMs: 1000 })),
      routes: [{ prefix: '', carrier: names.join(',') }],
    },
  });
  const bench = await startBenchService(store, [component]);
  const lists = new Map<string, Received[]>();
  let closed = false;
  try {
    await bench.admin('create-account', 'bench', '--password', 'bench-password', '--credits', String(recipients));
    const token = (await bench.admin('create-token', 'bench')).at(-1)!;
    await bench.admin('verify-sender', 'bench', 'Yona');
    const runtime = component.runtime()!;
    const failedOver = () => runtime.dispatcher.stats.failedOver;
    const phones = Array.from({ length: recipients }, (_, i) => `05${20_000_009 + i * 10}`);
    const t0 = performance.now();
    const res = await fetch(`${bench.httpUrl}/api`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        sms: { user: { username: 'bench' }, source: 'Yona', destinations: { phone: phones }, message: 'failover' },
      }),
    });
    const reply = (await res.json()) as { status: number; message: string };
    if (reply.status !== 0) throw new Error(`sms answered ${reply.status}: ${reply.message}`);
    let killed = !kill;
    let lastReceipt = t0;
    let receipts = 0;
    const deadline = Date.now() + 240_000;
    for (;;) {
      const now = performance.now();
      if (!killed && runtime.dispatcher.stats.accepted >= recipients * killAt) {
        lists.set(names[0], await readListAndKill(sims[0]));
        killed = true;
      }
      if (runtime.receipts.stats.changed !== receipts) {
        receipts = runtime.receipts.stats.changed;
        lastReceipt = now;
      }
      const open = await bench.service.store.db
        .selectFrom('messages')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('state', 'in', ['queued', 'submitting'])
        .executeTakeFirstOrThrow();
      if (killed && Number(open.n) === 0 && (receipts >= recipients || now - lastReceipt > QUIET_MS)) break;
      if (Date.now() > deadline) throw new Error(`timed out: ${JSON.stringify(runtime.dispatcher.stats)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    // What the killed sim answered after its list was read: it surely received those (the store has them as its).
    const killedList = lists.get(names[0]);
    let answeredAfterRead = 0;
    if (killedList) {
      const listed = new Set(killedList.map((m) => m.destination));
      const taken = await bench.service.store.db
        .selectFrom('messages')
        .select('phone')
        .where('carrier', '=', names[0])
        .where('state', 'in', ['submitted', 'done'])
        .execute();
      for (const { phone } of taken)
        if (!listed.has(phone)) {
          killedList.push({ destination: phone });
          answeredAfterRead++;
        }
    }
    await bench.close();
    closed = true;
    for (const [i, sim] of sims.entries())
      if (!lists.has(names[i])) lists.set(names[i], await sim.stopAndReadReceived());
    const copies = new Map<string, number>();
    for (const list of lists.values())
      for (const m of list) copies.set(m.destination, (copies.get(m.destination) ?? 0) + 1);
    let duplicates = 0;
    for (const n of copies.values()) duplicates += n - 1;
    return {
      delivered: receipts,
      duplicates,
      last_receipt_s: +((lastReceipt - t0) / 1000).toFixed(2),
      received_by: Object.fromEntries([...lists].map(([name, list]) => [name, list.length])),
      not_receipted: recipients - receipts,
      failed_over: failedOver(),
      ...(killedList ? { killed_sim_answered_after_its_list_was_read: answeredAfterRead } : {}),
    };
  } finally {
    if (!closed) await bench.close();
    for (const sim of sims) sim.stop();
  }
}

const noFailure = await run(false);
const withKill = killOne ? await run(true) : undefined;
const ratio = (a: number, b: number) => (b === 0 ? null : +(a / b).toFixed(3));
console.log(
  JSON.stringify({
    bench: 'dispatch',
    carriers,
    kill_one: killOne,
    store,
    recipients,
    kill_at: killOne ? killAt : undefined,
    route: 'one route, failover order',
    no_failure: noFailure,
    ...(withKill
      ? {
          kill_one_run: withKill,
          ratio_kill_to_no_failure: {
            delivered: ratio(withKill.delivered, noFailure.delivered),
            last_receipt_s: ratio(withKill.last_receipt_s, noFailure.last_receipt_s),
          },
        }
      : {}),
    load_average: loadavg().map((l) => +l.toFixed(2)),
  }),
);
