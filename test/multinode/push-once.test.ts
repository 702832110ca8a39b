// Exactly one push per dlr report with two nodes on one PostgreSQL database, every role on each (two `yona serve`
// processes on loopback ports): 1,000 messages sent through both nodes to `yona smsc-sim`, whose receipts either
// node may take, and both nodes' pushers claiming the same registration's events at once. The receiver answers
// every request 200 after a short wait (requests overlap on both nodes): each message's report must arrive
// exactly once, one event id per message.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startPushReceiver, waitFor, type PushReceiver } from '../helpers/push-receiver.ts';
import { whenQuiet } from '../helpers/quiescence.ts';
import { lastLine, runCli, startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';
import { simCarrierArgs, startSmscSimProcess, type SmscSimProcess } from '../helpers/smsc-sim-process.ts';
import { storeTargets } from '../helpers/stores.ts';
import { mobiles, waitForNoBackends } from '../delivery/delivery-helpers.ts';

const postgres = (await storeTargets()).find((t) => t.name === 'postgres');
const KEY = randomBytes(32).toString('base64');
const MESSAGES = 1000;

describe('one push per dlr report over two nodes (postgres)', { skip: !postgres && 'no PostgreSQL' }, () => {
  let created: Awaited<ReturnType<NonNullable<typeof postgres>['create']>>;
  let sim: SmscSimProcess;
  let receiver: PushReceiver;
  let nodes: ServeProcess[] = [];
  let token: string;

  const admin = async (...args: string[]) => {
    const run = await runCli({ ...process.env, DATABASE_URL: '', ...created.env, YONA_SECRET_KEY: KEY }, [
      'admin',
      ...args,
    ]);
    assert.equal(run.status, 0, `yona admin ${args.join(' ')}: ${run.stderr}`);
    return run;
  };
  const api = async (node: ServeProcess, root: string, doc: Record<string, unknown>) => {
    const res = await fetch(`http://127.0.0.1:${node.httpPort}/api`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ [root]: { user: { username: 'twice' }, ...doc } }),
    });
    return (await res.json()) as Record<string, any>;
  };
  const node = (name: string) =>
    startServeProcess(created.env, {
      YONA_NODE_NAME: name,
      YONA_SECRET_KEY: KEY,
      YONA_DATA_DIR: mkdtempSync(join(tmpdir(), `yona-${name}-`)),
      YONA_PUSH_ALLOW_PRIVATE: '1',
      YONA_PUSH_POLL_MS: '20',
    });

  before(async () => {
    created = await postgres!.create();
    sim = await startSmscSimProcess(['--receipt-delay', '20']);
    receiver = await startPushReceiver(async () => {
      await new Promise((r) => setTimeout(r, 5));
      return 200;
    });
    await admin('create-account', 'twice', '--password', 'secret-pw', '--credits', String(MESSAGES * 2));
    await admin('verify-sender', 'twice', 'Yona');
    token = lastLine(await admin('create-token', 'twice'));
    await admin(...simCarrierArgs('sim', sim, '--binds', '2'));
    await admin('add-route', 'default', 'sim');
    nodes = await Promise.all([node('node-a'), node('node-b')]);
    assert.equal((await api(nodes[0], 'push_url', { type: 'dlr', url: receiver.url })).status, 0);
  });
  after(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    await sim?.stop();
    await receiver?.close();
    await waitForNoBackends(created?.env.DATABASE_URL);
    await created?.cleanup();
  });

  it('each report is pushed exactly once, by one node or the other', async () => {
    const phones = mobiles(MESSAGES, 529_000_000);
    const id = (phone: string) => `once-${phone}`;
    // Single-recipient sends through both nodes at once, 20 in flight on each.
    const queue = [...phones];
    const sender = async (n: ServeProcess) => {
      for (let phone = queue.shift(); phone; phone = queue.shift()) {
        const reply = await api(n, 'sms', {
          source: 'Yona',
          message: 'once',
          destinations: { phone: [{ $: { id: id(phone) }, _: phone }] },
        });
        assert.equal(reply.status, 0, JSON.stringify(reply));
      }
    };
    await Promise.all(nodes.flatMap((n) => Array.from({ length: 20 }, () => sender(n))));

    await waitFor(
      () => new Set(receiver.received.map((p) => p.fields.external_id)).size >= MESSAGES,
      'a report for every message',
      120_000,
    );
    await whenQuiet(() => receiver.received.length, 'dlr pushes', { quietMs: 1500, maxMs: 30_000 });

    const byMessage = new Map<string, number>();
    const events = new Set<string>();
    for (const p of receiver.received) {
      byMessage.set(p.fields.external_id, (byMessage.get(p.fields.external_id) ?? 0) + 1);
      events.add(String(p.headers['x-yona-event-id']));
    }
    const twice = [...byMessage].filter(([, n]) => n > 1);
    assert.deepEqual(twice, [], 'reports pushed more than once');
    assert.deepEqual([...byMessage.keys()].sort(), phones.map(id).sort(), 'a report for every message');
    assert.equal(events.size, MESSAGES, 'one event id per message');
  });
});
