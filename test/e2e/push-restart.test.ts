// No dlr report lost when the pusher's process dies mid-batch, on every store: `yona serve` (a real process) sends
// 200 messages to `yona smsc-sim` and stores every receipt's report while it runs no pusher; then it runs every
// role and pushes the reports to a receiver on 127.0.0.1, which answers the first 40 and holds every request
// after them. With 40 reports recorded as delivered and a full round of requests held, the process is killed
// (SIGKILL) with claimed events in flight and queued under their lease. Started again on the same store, it pushes every report that was not
// answered: none is lost, and a report comes again only if it was in flight at the kill (docs/push.md, "At least
// once": a restart mid-request), with the same event id.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startPushReceiver, waitFor, type PushReceiver, type ReceivedPush } from '../helpers/push-receiver.ts';
import { whenQuiet } from '../helpers/quiescence.ts';
import { lastLine, runCli, startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';
import { simCarrierArgs, startSmscSimProcess, type SmscSimProcess } from '../helpers/smsc-sim-process.ts';
import { storeTargets } from '../helpers/stores.ts';
import { mobiles, waitForNoBackends } from '../delivery/delivery-helpers.ts';

const MESSAGES = 200;
const ANSWERED_BEFORE_KILL = 40;
const CONCURRENCY = 8;
const NODE_ENV = {
  YONA_SECRET_KEY: randomBytes(32).toString('base64'),
  YONA_PUSH_ALLOW_PRIVATE: '1',
  YONA_PUSH_POLL_MS: '50',
  YONA_PUSH_CONCURRENCY: String(CONCURRENCY),
  // Short, so the lease of the events claimed before the kill (a few of these per claimed round) ends soon.
  YONA_PUSH_TIMEOUT_MS: '1000',
};

const targets = await storeTargets();
for (const target of targets) {
  describe(`a dlr report survives the pusher killed mid-batch (${target.name})`, () => {
    let created: Awaited<ReturnType<typeof target.create>>;
    let sim: SmscSimProcess;
    let receiver: PushReceiver;
    let node: ServeProcess | undefined;
    let token: string;
    let holding = true;
    const held: ReceivedPush[] = [];
    const answered: ReceivedPush[] = [];

    const env = () => ({ ...process.env, DATABASE_URL: '', ...created.env, ...NODE_ENV });
    const admin = async (...args: string[]) => {
      const run = await runCli(env(), ['admin', ...args]);
      assert.equal(run.status, 0, `yona admin ${args.join(' ')}: ${run.stderr}`);
      return run;
    };
    const api = async (root: string, doc: Record<string, unknown>) => {
      const res = await fetch(`http://127.0.0.1:${node!.httpPort}/api`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ [root]: { user: { username: 'restarts' }, ...doc } }),
      });
      return (await res.json()) as Record<string, any>;
    };
    const pending = async () =>
      (await api('push_url', { action: 'status', type: 'dlr' })).registrations[0].pending_events as number;

    before(async () => {
      created = await target.create();
      sim = await startSmscSimProcess(['--receipt-delay', '20']);
      receiver = await startPushReceiver(async (push, n) => {
        if (n >= ANSWERED_BEFORE_KILL && holding) {
          held.push(push);
          await waitFor(() => !holding, 'the kill', 60_000).catch(() => {});
          return 200; // to a connection the kill has closed: never seen by the pusher
        }
        answered.push(push);
        return 200;
      });
      await admin('create-account', 'restarts', '--password', 'secret-pw', '--credits', '1000', '--new-store');
      await admin('verify-sender', 'restarts', 'Yona');
      token = lastLine(await admin('create-token', 'restarts'));
      await admin(...simCarrierArgs('sim', sim));
      await admin('add-route', 'default', 'sim');
      node = await startServeProcess(created.env, { ...NODE_ENV, YONA_ROLES: 'api,dispatcher,scheduler,receipts' });
      assert.equal((await api('push_url', { type: 'dlr', url: receiver.url })).status, 0);
    });
    after(async () => {
      holding = false;
      await node?.stop();
      await sim?.stop();
      await receiver?.close();
      await waitForNoBackends(created?.env.DATABASE_URL);
      await created?.cleanup();
    });

    it('after SIGKILL and a restart every report is pushed; only reports in flight at the kill come twice', async () => {
      const phones = mobiles(MESSAGES, 528_000_000);
      const reply = await api('sms', {
        source: 'Yona',
        message: 'report me',
        destinations: { phone: phones.map((p) => ({ $: { id: `rs-${p}` }, _: p })) },
      });
      assert.equal(reply.status, 0, JSON.stringify(reply));

      await waitFor(async () => (await pending()) === MESSAGES, 'every report stored', 60_000);
      assert.equal(receiver.received.length, 0, 'no pusher yet');
      await node!.stop();
      node = await startServeProcess(created.env, NODE_ENV);
      // The first 40 recorded as delivered, a full round of requests held.
      await waitFor(
        async () => held.length >= CONCURRENCY && (await pending()) === MESSAGES - ANSWERED_BEFORE_KILL,
        '40 reports delivered and a round in flight',
        30_000,
      );
      const inFlightAtKill = new Set(held.map((p) => p.headers['x-yona-event-id']));
      const answeredBeforeKill = new Set(answered.map((p) => p.headers['x-yona-event-id']));
      assert.equal(inFlightAtKill.size, CONCURRENCY, 'the registration concurrency of requests in flight');
      await node!.kill();
      holding = false;

      node = await startServeProcess(created.env, NODE_ENV);
      const reported = () => new Set(answered.map((p) => p.fields.external_id));
      await waitFor(() => reported().size >= MESSAGES, 'a report answered for every message', 60_000);
      await whenQuiet(() => receiver.received.length, 'dlr pushes', { quietMs: 1000 });
      assert.equal(await pending(), 0, 'nothing left to push');

      const expected = phones.map((p) => `rs-${p}`).sort();
      assert.deepEqual([...reported()].sort(), expected, 'no report lost');
      const times = new Map<string, number>();
      for (const p of receiver.received) {
        const id = String(p.headers['x-yona-event-id']);
        times.set(id, (times.get(id) ?? 0) + 1);
      }
      assert.equal(times.size, MESSAGES, 'one event per message');
      // A report comes again only if it was in flight at the kill (a restart mid-request, docs/push.md) or after a
      // failed attempt the store logged (a 200 that came too late: "a lost 200").
      const log = await admin('push', 'log', 'restarts', 'dlr', '1000');
      const failedAttempts = new Map<string, number>();
      for (const line of log.stdout.trim().split('\n')) {
        const m = / event=(\d+) http=(\S+) /.exec(line);
        if (m && m[2] !== '200') failedAttempts.set(m[1], (failedAttempts.get(m[1]) ?? 0) + 1);
      }
      for (const [id, n] of times) {
        const allowed = 1 + (inFlightAtKill.has(id) ? 1 : 0) + (failedAttempts.get(id) ?? 0);
        assert.ok(
          n <= allowed,
          `event ${id} pushed ${n} times (in flight at the kill: ${inFlightAtKill.has(id)}, failed attempts logged: ${failedAttempts.get(id) ?? 0})`,
        );
        if (n > 1)
          assert.ok(!answeredBeforeKill.has(id) || failedAttempts.has(id), `event ${id} was recorded before the kill`);
      }
    });
  });
}
