// WhatsApp on two `yona serve` nodes on one PostgreSQL database (loopback processes on their own ports), with `yona
// wa-sim` as the Cloud API: every status webhook the simulator posts to node A is posted again, with the same
// signed bytes, to node B, and each status is processed once (one dlr_whatsapp push per message and status, the
// read reported, nothing on dlr); and a business number's rate set to 20/s holds across both nodes sending at once
// (the simulator's acceptance times never exceed it over any 1 s window beyond a small burst).
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startPushReceiver, waitFor, type PushReceiver } from '../helpers/push-receiver.ts';
import { lastLine, runCli, startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';
import { storeTargets } from '../helpers/stores.ts';
import { SIM_APP_SECRET, SIM_TOKEN, startWaSimProcess, type WaSimProcess } from '../helpers/wa-sim-process.ts';
import { waitForNoBackends } from '../delivery/delivery-helpers.ts';
import { whatsappCarrierArgs } from '../helpers/whatsapp-carrier.ts';

const postgres = (await storeTargets()).find((t) => t.name === 'postgres');
const BUSINESS = '972771230000';
const RATE = 20;
// The key that seals the carrier's token and app secret, shared by the admin CLI and both nodes.
const KEY = randomBytes(32).toString('base64');

describe('WhatsApp on two nodes (postgres)', { skip: !postgres && 'no PostgreSQL' }, () => {
  let created: Awaited<ReturnType<NonNullable<typeof postgres>['create']>>;
  let sim: WaSimProcess;
  let waHook: PushReceiver;
  let dlrHook: PushReceiver;
  let a: ServeProcess;
  let b: ServeProcess;
  let token: string;

  const admin = async (...args: string[]) => {
    const run = await runCli({ ...process.env, DATABASE_URL: '', ...created.env, YONA_SECRET_KEY: KEY }, [
      'admin',
      ...args,
    ]);
    assert.equal(run.status, 0, `yona admin ${args.join(' ')}: ${run.stderr}`);
    return run;
  };
  const api = async (node: ServeProcess, root: string, doc: Record<string, unknown>, dryRun = false) => {
    const res = await fetch(`http://127.0.0.1:${node.httpPort}${dryRun ? '/api/test' : '/api'}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ [root]: { user: { username: 'wanodes' }, ...doc } }),
    });
    return (await res.json()) as Record<string, any>;
  };
  const sendTemplate = (node: ServeProcess, phones: string[], dryRun = false) =>
    api(
      node,
      'sms',
      { source: BUSINESS, channel: 'whatsapp', destinations: { phone: phones }, template: { id: 'hello_world' } },
      dryRun,
    );
  const webhookOf = (node: ServeProcess) => `http://127.0.0.1:${node.httpPort}/webhooks/whatsapp/wa`;
  // Distinct users (numbers ending in 7: no scripted outcome), so no user's pace applies.
  const users = (count: number, base: number) =>
    Array.from({ length: count }, (_, i) => `9725${String(base + i * 10 + 7).padStart(8, '0')}`);
  const node = (name: string) =>
    startServeProcess(created.env, {
      YONA_NODE_NAME: name,
      YONA_SECRET_KEY: KEY,
      YONA_DATA_DIR: mkdtempSync(join(tmpdir(), `yona-${name}-`)),
      YONA_PUSH_ALLOW_PRIVATE: '1',
      YONA_PUSH_POLL_MS: '50',
    });

  before(async () => {
    created = await postgres!.create();
    sim = await startWaSimProcess(['--status-delay', '50']);
    waHook = await startPushReceiver();
    dlrHook = await startPushReceiver();
    await admin('create-account', 'wanodes', '--password', 'secret-pw', '--credits', '1000');
    token = lastLine(await admin('create-token', 'wanodes'));
    await admin(
      ...whatsappCarrierArgs('wa', {
        business: BUSINESS,
        phoneNumberId: 'PN-NODES',
        wabaId: 'WABA-NODES',
        token: SIM_TOKEN,
        appSecret: SIM_APP_SECRET,
        verifyToken: 'verify',
        graphUrl: sim.graphUrl,
      }),
      '--messages-per-second',
      String(RATE),
    );
    await admin('add-route', 'default', 'wa', '--channel', 'whatsapp');
    await admin('whatsapp-number', 'add', 'wanodes', BUSINESS, '--carrier', 'wa');
    await admin('push', 'secret', 'wanodes');
    [a, b] = await Promise.all([node('wa-node-a'), node('wa-node-b')]);
    const hooked = await fetch(`${sim.controlUrl}/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: webhookOf(a), appSecret: SIM_APP_SECRET }),
    });
    assert.equal(hooked.status, 200);
    assert.equal((await api(a, 'push_url', { type: 'dlr_whatsapp', url: waHook.url })).status, 0);
    assert.equal((await api(a, 'push_url', { type: 'dlr', url: dlrHook.url })).status, 0);
    // Both nodes see the carrier and its templates (synced from the simulator).
    for (const n of [a, b])
      await waitFor(
        async () => (await sendTemplate(n, users(1, 9_000_000), true)).status === 0,
        'the WhatsApp carrier and its templates seen by the API',
        30_000,
      );
  });
  after(async () => {
    await Promise.all([a, b].filter(Boolean).map((n) => n.stop()));
    await sim?.stop();
    await waHook?.close();
    await dlrHook?.close();
    await waitForNoBackends(created?.env.DATABASE_URL);
    await created?.cleanup();
  });

  it('processes once a status webhook received by both nodes: one dlr_whatsapp push per status, none on dlr', async () => {
    const phones = users(3, 1_000_000);
    const sent = await sendTemplate(a, phones);
    assert.equal(sent.status, 0, JSON.stringify(sent));
    let ids: string[] = [];
    await waitFor(
      async () => {
        const taken = (await sim.control.messages()).filter((m) => phones.includes(m.waId));
        ids = taken.map((m) => m.id);
        const posted = (await sim.control.webhooks()).filter((w) => ids.includes(w.messageId) && w.delivered);
        return ids.length === 3 && posted.filter((w) => w.status === 'read').length === 3;
      },
      'sent, delivered and read posted to node A for the three messages',
      30_000,
    );
    const posts = (await sim.control.webhooks()).filter((w) => ids.includes(w.messageId));
    assert.equal(posts.length, 9, 'three statuses for each message');
    // The same signed bytes, now received by node B (as when Meta retries to another node behind a balancer).
    for (const post of posts) {
      const signature = `sha256=${createHmac('sha256', SIM_APP_SECRET).update(post.body).digest('hex')}`;
      const res = await fetch(webhookOf(b), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
        body: post.body,
      });
      assert.equal(res.status, 200, `node B takes the repeat of ${post.status} of ${post.messageId}`);
    }
    const fields = () => waHook.received.map((p) => JSON.parse(p.body) as Record<string, string>);
    await waitFor(
      () =>
        new Set(
          fields()
            .filter((f) => f.ack === 'read' && phones.includes(f.phone))
            .map((f) => f.unique),
        ).size === 3,
      'the read of each message pushed',
      30_000,
    );
    // Time for any second processing of the repeats to push.
    await new Promise((r) => setTimeout(r, 2000));
    const pushes = fields();
    const keys = pushes.map((f) => `${f.unique}/${f.ack}`);
    assert.deepEqual(
      keys.filter((k, i) => keys.indexOf(k) !== i),
      [],
      'no message and status pushed twice',
    );
    assert.ok(
      pushes.every((f) => f.channel === 'whatsapp'),
      'the feed carries the channel',
    );
    assert.deepEqual(
      [...new Set(pushes.map((f) => f.phone))].sort(),
      [...phones].sort(),
      'pushes for the three messages only',
    );
    assert.equal(dlrHook.received.length, 0, 'nothing on dlr');
  });

  it(`holds the business number's ${RATE}/s across both nodes sending at once`, async () => {
    const fromA = users(60, 2_000_000);
    const fromB = users(60, 3_000_000);
    const [ra, rb] = await Promise.all([sendTemplate(a, fromA), sendTemplate(b, fromB)]);
    assert.equal(ra.status, 0, JSON.stringify(ra));
    assert.equal(rb.status, 0, JSON.stringify(rb));
    const mine = new Set([...fromA, ...fromB]);
    let times: number[] = [];
    await waitFor(
      async () => {
        times = (await sim.control.messages()).filter((m) => mine.has(m.waId)).map((m) => m.acceptedAt);
        return times.length === mine.size;
      },
      `${mine.size} messages taken by the simulator`,
      60_000,
    );
    times.sort((x, y) => x - y);
    let most = 0;
    for (let i = 0, j = 0; i < times.length; i++) {
      while (times[i] - times[j] >= 1000) j++;
      most = Math.max(most, i - j + 1);
    }
    // Each node's share may start with a burst of a twentieth of its rate (one message here), and a lease moving
    // between the nodes may overlap by a share.
    assert.ok(most <= RATE + 4, `at most ${RATE + 4} in any 1 s window, got ${most}`);
    const seconds = (times.at(-1)! - times[0]) / 1000;
    assert.ok(seconds >= (mine.size - RATE - 4) / RATE, `${mine.size} messages over ${seconds} s`);
  });
});
