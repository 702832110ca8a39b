// Limits and idempotency keys across two `yona serve` processes on one PostgreSQL database (loopback, two ports,
// distinct YONA_NODE_NAME): 100 send_otp at once to one phone, spread over both nodes, accept exactly one; 200
// wrong guesses over both count exactly 10; twenty sends with one Idempotency-Key over both make one campaign and
// get one reply, and a retry on the other node gets the first node's reply. Prints its figures (FAULTS lines).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Agent, request } from 'undici';
import { runAdminCommand } from '../../src/cli/admin.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore, type Store } from '../../src/store/engine/db.ts';
import { startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';
import { storeTargets } from '../helpers/stores.ts';
import { waitForNoBackends } from '../delivery/delivery-helpers.ts';

const postgres = (await storeTargets()).find((t) => t.name === 'postgres');

describe('limits and idempotency keys across two nodes (postgres)', { skip: !postgres && 'no PostgreSQL' }, () => {
  let created: Awaited<ReturnType<NonNullable<typeof postgres>['create']>>;
  let nodes: ServeProcess[] = [];
  let store: Store;
  let token: string;
  const agent = new Agent({ connections: 64 });

  before(async () => {
    created = await postgres!.create();
    const config = loadConfig({ ...process.env, ...created.env });
    store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    const lines: string[] = [];
    const admin = (...args: string[]) => runAdminCommand(store, config, args, (l) => lines.push(l));
    await admin('create-account', 'twonode', '--password', 'secret-pw', '--credits', '10000');
    await admin('verify-sender', 'twonode', 'Yona');
    await admin('create-token', 'twonode');
    token = lines.at(-1)!;
    nodes = await Promise.all(
      ['node-a', 'node-b'].map((name) => startServeProcess(created.env, { YONA_NODE_NAME: name })),
    );
  });
  after(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    await store?.close();
    await agent.close();
    await waitForNoBackends(created?.env.DATABASE_URL);
    await created?.cleanup();
  });

  const call = async (
    node: number,
    root: string,
    doc: Record<string, unknown>,
    headers: Record<string, string> = {},
  ) => {
    const res = await request(`http://127.0.0.1:${nodes[node % 2].httpPort}/api`, {
      method: 'POST',
      dispatcher: agent,
      body: JSON.stringify({ [root]: { user: { username: 'twonode' }, ...doc } }),
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    });
    return (await res.body.json()) as Record<string, any>;
  };

  it('100 send_otp at once over both nodes to one phone: exactly one accepted', async () => {
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, i) => call(i, 'send_otp', { phone: '0521239901', source: 'Yona' })),
    );
    const accepted = replies.filter((r) => r.status === 0).length;
    console.log(`FAULTS otp resend burst over 2 nodes (postgres): ${accepted} of 100 accepted`);
    assert.equal(accepted, 1);
    assert.ok(replies.every((r) => r.status === 0 || r.status === 5));
  });

  it('200 wrong guesses at once over both nodes and 5 codes of one phone: exactly 10 counted', async () => {
    for (let app = 1; app <= 5; app++)
      assert.equal((await call(app, 'send_otp', { phone: '0521239902', source: 'Yona', app_id: app })).status, 0);
    const replies = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        call(i, 'validate_otp', { phone: '0521239902', code: '0000000', app_id: (i % 5) + 1 }),
      ),
    );
    const compared = replies.filter((r) => /^Unverified code: wrong code/.test(r.message)).length;
    console.log(`FAULTS otp guess burst over 2 nodes (postgres): ${compared} of 200 compared (limit 10)`);
    assert.equal(compared, 10);
  });

  it('one Idempotency-Key over both nodes: one campaign, one reply, also for a later retry', async () => {
    const doc = { source: 'Yona', message: 'two nodes', destinations: { phone: '0521239903' } };
    const key = { 'Idempotency-Key': 'two-node-order-1' };
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => call(i, 'sms', doc, key)));
    assert.equal(replies[0].status, 0, replies[0].message);
    for (const r of replies) assert.deepEqual(r, replies[0]);
    const retryElsewhere = await call(1, 'sms', doc, key);
    assert.deepEqual(retryElsewhere, replies[0]);
    const sms = await store.db.selectFrom('messages').select('id').where('phone', '=', '972521239903').execute();
    console.log(`FAULTS idempotent sms over 2 nodes (postgres): 21 requests, ${sms.length} message(s)`);
    assert.equal(sms.length, 1);
  });
});
