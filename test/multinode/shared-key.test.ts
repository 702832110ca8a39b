// Two `yona serve` nodes on one PostgreSQL database sharing one YONA_SECRET_KEY (loopback processes on their own
// ports; no network namespaces needed): a one-time code sent through node A is validated through node B; the
// carrier password `yona admin` sealed opens on both (each binds the carrier); a push signing secret `yona admin
// push secret` sealed signs the push node B sends. A third node given another key shows the failure
// docs/security.md ("Nodes with different keys") documents: the carrier stays down on it with
// `carrier.secret_unopened`, while the nodes with the shared key keep it up, and a code sent through node B is a
// wrong code on it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { verifyPushSignature } from '../../sdk/src/push.ts';
import { startPushReceiver, waitFor, type PushReceiver } from '../helpers/push-receiver.ts';
import { lastLine, runCli, startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';
import { simCarrierArgs, startSmscSimProcess, type SmscSimProcess } from '../helpers/smsc-sim-process.ts';
import { storeTargets } from '../helpers/stores.ts';
import { waitForNoBackends } from '../delivery/delivery-helpers.ts';

const postgres = (await storeTargets()).find((t) => t.name === 'postgres');
const KEY = randomBytes(32).toString('base64');
const OTHER_KEY = randomBytes(32).toString('base64');

interface CarrierHealth {
  down: boolean;
  bindsUp: number;
  lastError?: { text: string };
}

describe('two nodes sharing one secret key (postgres)', { skip: !postgres && 'no PostgreSQL' }, () => {
  let created: Awaited<ReturnType<NonNullable<typeof postgres>['create']>>;
  let sim: SmscSimProcess;
  let receiver: PushReceiver;
  let a: ServeProcess;
  let b: ServeProcess;
  let token: string;
  let pushSecret: string;

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
      body: JSON.stringify({ [root]: { user: { username: 'keyed' }, ...doc } }),
    });
    return (await res.json()) as Record<string, any>;
  };
  const carrier = async (node: ServeProcess) => {
    const res = await fetch(`http://127.0.0.1:${node.httpPort}/healthz?role=dispatcher`);
    return ((await res.json()) as { carriers: Record<string, CarrierHealth> }).carriers.sim;
  };
  // Each node its own data dir, as on its own host.
  const node = (name: string, key: string) =>
    startServeProcess(created.env, {
      YONA_NODE_NAME: name,
      YONA_SECRET_KEY: key,
      YONA_DATA_DIR: mkdtempSync(join(tmpdir(), `yona-${name}-`)),
      YONA_PUSH_ALLOW_PRIVATE: '1',
      YONA_PUSH_POLL_MS: '50',
    });
  // The carrier's binds this node holds (its leased shares of the carrier's two).
  const shares = async (node: ServeProcess) => {
    const text = await (await fetch(`http://127.0.0.1:${node.httpPort}/metrics`)).text();
    return Number(/^yona_carrier_shares_in_use\{[^}]*carrier="sim"[^}]*\} (\d+)/m.exec(text)?.[1] ?? 0);
  };

  // The one-time code the simulator received for `phone`.
  const codeSentTo = async (phone: string) => {
    let text = '';
    await waitFor(
      async () => {
        text = (await sim.messages(phone))[0]?.text ?? '';
        return text !== '';
      },
      `the code to ${phone}`,
      20_000,
    );
    const code = /\d{4,8}/.exec(text)?.[0];
    assert.ok(code, `a code in "${text}"`);
    return code;
  };

  before(async () => {
    created = await postgres!.create();
    sim = await startSmscSimProcess(['--receipt-delay', '20']);
    receiver = await startPushReceiver();
    await admin('create-account', 'keyed', '--password', 'secret-pw', '--credits', '100');
    await admin('verify-sender', 'keyed', 'Yona');
    token = lastLine(await admin('create-token', 'keyed'));
    await admin(...simCarrierArgs('sim', sim, '--binds', '2'));
    await admin('add-route', 'default', 'sim');
    pushSecret = lastLine(await admin('push', 'secret', 'keyed'));
    [a, b] = await Promise.all([node('node-a', KEY), node('node-b', KEY)]);
  });
  after(async () => {
    await Promise.all([a, b].filter(Boolean).map((n) => n.stop()));
    await sim?.stop();
    await receiver?.close();
    await waitForNoBackends(created?.env.DATABASE_URL);
    await created?.cleanup();
  });

  it('opens the sealed carrier password on both nodes: each holds one of its two binds', async () => {
    await waitFor(
      async () => (await shares(a)) === 1 && (await shares(b)) === 1,
      'one bind of the carrier on each node',
      30_000,
    );
  });

  it('validates through node B a one-time code sent through node A', async () => {
    const sent = await api(a, 'send_otp', { phone: '0521237001', source: 'Yona' });
    assert.equal(sent.status, 0, JSON.stringify(sent));
    const code = await codeSentTo('972521237001');
    const wrong = await api(b, 'validate_otp', { phone: '0521237001', code: code === '0000' ? '1111' : '0000' });
    assert.notEqual(wrong.status, 0, 'a wrong code is refused');
    const checked = await api(b, 'validate_otp', { phone: '0521237001', code });
    assert.equal(checked.status, 0, JSON.stringify(checked));
  });

  it('signs with the sealed push secret the push node B sends', async () => {
    const registered = await api(a, 'push_url', { type: 'blacklist', url: receiver.url });
    assert.equal(registered.status, 0, JSON.stringify(registered));
    await a.stop(); // only node B pushes from now on
    assert.equal((await api(b, 'addNumBL', { phones: { phone: ['0521237002'] } })).status, 946);
    await waitFor(() => receiver.received.some((p) => p.fields.dest === '972521237002'), 'the push', 20_000);
    const push = receiver.received.find((p) => p.fields.dest === '972521237002')!;
    assert.equal(verifyPushSignature(push.headers, push.body, pushSecret), true, 'signed with the secret');
  });

  it('a node with another key: the carrier down on it (up on node B), a code sent through node B wrong on it', async () => {
    const c = await node('node-c', OTHER_KEY);
    try {
      await waitFor(() => c.logs().includes('"event":"carrier.secret_unopened"'), 'carrier.secret_unopened', 10_000);
      const health = await carrier(c);
      assert.deepEqual([health.down, health.bindsUp], [true, 0]);
      assert.match(health.lastError?.text ?? '', /sealed with another secret key/);
      assert.ok((await carrier(b)).bindsUp > 0, 'node B keeps its bind');
      const sent = await api(b, 'send_otp', { phone: '0521237003', source: 'Yona' });
      assert.equal(sent.status, 0, JSON.stringify(sent));
      const code = await codeSentTo('972521237003');
      const refused = await api(c, 'validate_otp', { phone: '0521237003', code });
      assert.deepEqual([refused.status, refused.message], [12, 'Unverified code: wrong code (2 attempts left)']);
      assert.equal((await api(b, 'validate_otp', { phone: '0521237003', code })).status, 0, 'node B validates it');
    } finally {
      await c.stop();
    }
  });
});
