// Carrier health an operator can see, end to end on every store: `yona serve` (a child process) binds two
// `yona smsc-sim` processes; after a send, `yona admin carriers --status` (another process, reading the node's
// snapshot from the store), `/healthz?role=dispatcher` and `/metrics` show the binds up and the submits counted.
// The SMSC throttling us shows as throttled and is logged once past the grace time (`carrier.throttled`), then
// `carrier.unthrottled`. A killed simulator shows 0 binds up and its last error, `carrier.down` is logged once past
// the grace time; with both killed the dispatcher role answers 503 and new messages wait in the due queue.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runAdminCommand } from '../../src/cli/admin.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore, type Store } from '../../src/store/engine/db.ts';
import { runCli, startServeProcess, type CliRun, type ServeProcess } from '../helpers/serve-process.ts';
import { startSmscSimProcess, type SmscSimProcess } from '../helpers/smsc-sim-process.ts';
import { storeTargets } from '../helpers/stores.ts';
import { mobiles } from '../delivery/delivery-helpers.ts';

const NODE = 'health-node';
const GRACE_MS = 1000;

// Polls `check` every `everyMs` until it returns something truthy.
async function until<T>(check: () => Promise<T | undefined | false>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${last}` : ''}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

interface StatusCarrier {
  name: string;
  binds_up: number;
  binds_wanted: number | null;
  submits_accepted: number;
  submits_per_second: number;
  window_in_use: number;
  window_size: number;
  throttled: boolean;
  down: boolean;
  last_error: { text: string; at: number } | null;
  queue_length: number;
  nodes: Array<{ node: string; binds_up: number }>;
}
interface Status {
  reported: boolean;
  carriers: StatusCarrier[];
  nodes: Array<{ name: string; reported_at: number | null }>;
  due_queue: { messages: number; oldest_age_ms: number | null };
}
interface CarrierReport {
  bindsUp: number;
  bindsWanted: number;
  submitsAccepted: number;
  throttled: boolean;
  down: boolean;
  lastError?: { text: string; at: number };
}

// One sample's value from the metrics text, by metric name and its labels (in their printed order).
function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

const targets = await storeTargets();
for (const [index, target] of targets.entries()) {
  describe(`carrier health (${target.name})`, () => {
    let a: SmscSimProcess;
    let b: SmscSimProcess;
    let serve: ServeProcess;
    let store: Store;
    let cleanup: () => Promise<void>;
    let token: string;
    let beforeServe: CliRun;
    const base = 548_000_000 + index * 100_000;

    const cli = async (...args: string[]) => {
      const run = await serve.cli('admin', 'carriers', ...args);
      assert.equal(run.status, 0, run.stderr);
      return run.stdout;
    };
    const status = async () => JSON.parse(await cli('--status', '--json')) as Status;
    const carrierOf = (s: Status, name: string) => s.carriers.find((c) => c.name === name);
    const healthz = async () => {
      const res = await fetch(`http://127.0.0.1:${serve.httpPort}/healthz?role=dispatcher`);
      return {
        code: res.status,
        body: (await res.json()) as { status: string; problem?: string; carriers: Record<string, CarrierReport> },
      };
    };
    const metrics = async () => (await fetch(`http://127.0.0.1:${serve.httpPort}/metrics`)).text();
    const send = async (count: number, offset: number) => {
      const res = await fetch(`http://127.0.0.1:${serve.httpPort}/api`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          sms: {
            user: { username: 'health' },
            source: 'Yona',
            destinations: { phone: mobiles(count, base + offset) },
            message: 'health check',
          },
        }),
      });
      const reply = (await res.json()) as { status: number };
      assert.equal(reply.status, 0, JSON.stringify(reply));
    };
    const logEvents = (event: string, carrier: string) =>
      serve
        .logs()
        .split('\n')
        .filter((l) => l.includes(`"event":"${event}"`) && l.includes(`"carrier":"${carrier}"`))
        .map((l) => JSON.parse(l) as Record<string, unknown>);

    before(async () => {
      a = await startSmscSimProcess(['--receipt-delay', '20']);
      b = await startSmscSimProcess(['--receipt-delay', '20']);
      const created = await target.create();
      cleanup = created.cleanup;
      const carriersFile = join(created.env.YONA_DATA_DIR, 'carriers.json');
      const carrier = (name: string, sim: SmscSimProcess, binds: number) => ({
        name,
        host: '127.0.0.1',
        port: sim.smppPort,
        systemId: 'yona',
        password: 'secret',
        binds,
        windowSize: 10,
        downGraceMs: GRACE_MS,
        reconnectBaseMs: 200,
        reconnectMaxMs: 1000,
      });
      writeFileSync(
        carriersFile,
        JSON.stringify({ carriers: [carrier('a', a, 2), carrier('b', b, 1)], routes: { default: 'a,b' } }),
      );
      const config = loadConfig({ ...process.env, DATABASE_URL: '', ...created.env });
      store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
      const lines: string[] = [];
      const admin = (...args: string[]) => runAdminCommand(store, config, args, (l) => lines.push(l));
      await admin('create-account', 'health', '--password', 'secret-pw', '--credits', '1000');
      await admin('create-token', 'health');
      token = lines.at(-1)!;
      await admin('verify-sender', 'health', 'Yona');
      beforeServe = await runCli(
        { ...process.env, DATABASE_URL: '', ...created.env, YONA_CARRIERS_FILE: carriersFile },
        ['admin', 'carriers', '--status'],
      );
      serve = await startServeProcess(created.env, {
        YONA_CARRIERS_FILE: carriersFile,
        YONA_NODE_NAME: NODE,
        YONA_NODE_LEASE_MS: '3000',
      });
    });
    after(async () => {
      await serve?.stop();
      await store?.close();
      await a?.stop();
      await b?.stop();
      await cleanup?.();
    });

    it('says so when no running node has reported, and takes --json only with --status', async () => {
      assert.equal(beforeServe.status, 0, beforeServe.stderr);
      assert.match(beforeServe.stdout, /^no running node: .*no carrier health is known/m);
      assert.match(beforeServe.stdout, /^a +- +\? .*not run by any live node$/m);
      const wrong = await serve.cli('admin', 'carriers', '--json');
      assert.notEqual(wrong.status, 0);
      assert.match(wrong.stderr, /--json goes with --status/);
    });

    it('shows binds up and the submits counted in the CLI, /healthz and /metrics', async () => {
      await send(30, 0);
      const s = await until(async () => {
        const s = await status();
        return (carrierOf(s, 'a')?.submits_accepted ?? 0) >= 30 && carrierOf(s, 'b')?.binds_up === 1 && s;
      }, 'the node to report 30 submits on a');
      assert.equal(s.reported, true);
      const ca = carrierOf(s, 'a')!;
      assert.deepEqual([ca.binds_up, ca.binds_wanted, ca.window_size], [2, 2, 20]);
      assert.equal(ca.throttled, false);
      assert.equal(ca.down, false);
      assert.ok(ca.submits_per_second > 0, `submits per second ${ca.submits_per_second}`);
      assert.deepEqual(
        ca.nodes.map((n) => n.node),
        [NODE],
      );
      assert.equal(s.due_queue.messages, 0);

      const table = await cli('--status');
      const header = table.split('\n').find((l) => l.startsWith('CARRIER'));
      assert.ok(header?.includes('SUBMITS/S') && header.includes('LAST ERROR'), table);
      assert.match(table, new RegExp(`^a +${NODE} +2/2 `, 'm'));
      assert.match(table, new RegExp(`^b +${NODE} +1/1 `, 'm'));
      assert.match(table, /^due queue: 0 messages due$/m);

      const h = await healthz();
      assert.equal(h.code, 200);
      assert.equal(h.body.carriers.a.bindsUp, 2);
      assert.ok(h.body.carriers.a.submitsAccepted >= 30);

      const m = await metrics();
      assert.equal(sample(m, 'yona_carrier_binds_up', `node="${NODE}",carrier="a"`), 2);
      assert.equal(sample(m, 'yona_carrier_binds_wanted', `node="${NODE}",carrier="a"`), 2);
      assert.equal(sample(m, 'yona_carrier_binds_up', `node="${NODE}",carrier="b"`), 1);
      assert.ok(
        (sample(m, 'yona_carrier_submits_total', `node="${NODE}",carrier="a",outcome="accepted"`) ?? 0) >= 30,
        m,
      );
      assert.equal(sample(m, 'yona_carrier_throttled', `node="${NODE}",carrier="a"`), 0);
      assert.equal(sample(m, 'yona_carrier_queue_length', `node="${NODE}",carrier="a",queue="held"`), 0);
      assert.equal(sample(m, 'yona_due_queue_length', `node="${NODE}"`), 0);
    });

    it('an SMSC throttling us shows as throttled, logged once past the grace time and when it ends', async () => {
      await a.post('/throttle', { on: true });
      await send(3, 1000);
      const h = await until(async () => {
        const h = await healthz();
        return h.body.carriers.a.throttled && h;
      }, 'a throttled in /healthz');
      assert.match(h.body.carriers.a.lastError?.text ?? '', /THROTTLED/);
      await until(async () => logEvents('carrier.throttled', 'a').length > 0, 'the carrier.throttled line');
      const m = await metrics();
      assert.equal(sample(m, 'yona_carrier_throttled', `node="${NODE}",carrier="a"`), 1);
      await a.post('/throttle', { on: false });
      await until(async () => logEvents('carrier.unthrottled', 'a').length > 0, 'the carrier.unthrottled line');
      const [warned] = logEvents('carrier.throttled', 'a');
      assert.ok(Number(warned.throttled_ms) >= GRACE_MS, JSON.stringify(warned));
      assert.equal(logEvents('carrier.throttled', 'a').length, 1, 'once per episode');
      assert.equal((await healthz()).body.carriers.a.throttled, false);
    });

    it('a killed simulator shows no bind up and its last error; carrier.down is logged once past the grace time', async () => {
      const killedAt = Date.now();
      await b.stop();
      const h = await until(async () => {
        const h = await healthz();
        return h.body.carriers.b.bindsUp === 0 && h;
      }, 'b with no bind up in /healthz');
      assert.equal(h.code, 200, 'a still submits');
      assert.equal(h.body.carriers.b.down, true);
      assert.ok((h.body.carriers.b.lastError?.at ?? 0) >= killedAt, JSON.stringify(h.body.carriers.b));

      const down = await until(async () => logEvents('carrier.down', 'b')[0], 'the carrier.down line');
      assert.ok(Number(down.down_ms) >= GRACE_MS, JSON.stringify(down));
      assert.equal(logEvents('carrier.down', 'a').length, 0);

      const m = await metrics();
      assert.equal(sample(m, 'yona_carrier_binds_up', `node="${NODE}",carrier="b"`), 0);
      assert.equal(sample(m, 'yona_carrier_down', `node="${NODE}",carrier="b"`), 1);
      assert.ok(
        (sample(m, 'yona_carrier_last_error_timestamp_seconds', `node="${NODE}",carrier="b"`) ?? 0) >= killedAt / 1000,
      );

      const s = await until(async () => {
        const s = await status();
        return carrierOf(s, 'b')?.binds_up === 0 && s;
      }, 'b with no bind up in the CLI');
      const cb = carrierOf(s, 'b')!;
      assert.equal(cb.down, true);
      assert.ok((cb.last_error?.at ?? 0) >= killedAt);
      const table = await cli('--status');
      const line = table.split('\n').find((l) => l.startsWith('b '));
      assert.match(line ?? '', new RegExp(`^b +${NODE} +0/1 .*ago\\)$`), table);
      assert.equal(logEvents('carrier.down', 'b').length, 1, 'once per episode');
    });

    it("a message that failed on its last carrier counts in that carrier's queue until its retry", async () => {
      // a refuses for its own reasons (ESME_RSYSERR: the next carrier may take it), b is down: the message is
      // queued for a retry after its try on b, and again each time.
      await a.post('/fail-next', { n: 1000, status: 0x08 });
      await send(1, 3000);
      // The queues come from the store; a's last error from the node's snapshot, written with its heartbeat.
      const s = await until(async () => {
        const s = await status();
        const refused = /ESME_RSYSERR|0x8/i.test(carrierOf(s, 'a')?.last_error?.text ?? '');
        return (carrierOf(s, 'b')?.queue_length ?? 0) >= 1 && refused && s;
      }, "the message in b's queue and a's refusal as its last error");
      const cb = carrierOf(s, 'b') as StatusCarrier & { queue_retry: number; oldest_message_age_ms: number | null };
      assert.equal(cb.queue_retry, cb.queue_length);
      assert.ok((cb.oldest_message_age_ms ?? -1) >= 0);
      assert.match(carrierOf(s, 'a')?.last_error?.text ?? '', /ESME_RSYSERR|0x8/i);
      await until(async () => {
        const m = await metrics();
        return (sample(m, 'yona_carrier_queue_length', `node="${NODE}",carrier="b",queue="retry"`) ?? 0) >= 1;
      }, "yona_carrier_queue_length of b's retries");
      assert.equal(logEvents('carrier.down', 'b').length, 1, 'still one line for the one episode');
    });

    it('with every text carrier down the dispatcher role is unhealthy and new messages wait in the due queue', async () => {
      await a.stop();
      const h = await until(async () => {
        const h = await healthz();
        return h.code === 503 && h;
      }, '/healthz?role=dispatcher answering 503');
      assert.equal(h.body.status, 'unhealthy');
      assert.match(h.body.problem ?? '', /no carrier that routes texts can submit/);
      await send(4, 2000);
      const s = await until(async () => {
        const s = await status();
        return s.due_queue.messages >= 4 && s;
      }, 'the due queue holding the messages');
      assert.ok((s.due_queue.oldest_age_ms ?? -1) >= 0);
      const table = await cli('--status');
      assert.match(table, /^due queue: \d+ messages due, the oldest due for /m);
      const m = await until(async () => {
        const m = await metrics();
        return (sample(m, 'yona_due_queue_length', `node="${NODE}"`) ?? 0) >= 4 && m;
      }, 'yona_due_queue_length');
      assert.equal(sample(m, 'yona_carrier_binds_up', `node="${NODE}",carrier="a"`), 0);
    });
  });
}
