// A live route change over two `yona serve` nodes on one PostgreSQL database (loopback, two ports, distinct
// YONA_NODE_NAME), each holding one bind of each of two `yona smsc-sim` carriers: while a campaign is being sent
// by both, `yona admin add-route 972 b` (run as its own process) moves the rest of it to carrier b on BOTH nodes
// within 5 s, and `yona admin remove-route 972` moves it back to a, without a restart. Counted on the simulators
// (no message reaches the old carrier 5 s after a change; every message reaches the carriers exactly once), on
// each node's /metrics (both keep submitting in each phase) and in the store (each message's carrier is the
// simulator that received it, and every one is delivered).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runAdminCommand } from '../../src/cli/admin.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore, type Store } from '../../src/store/engine/db.ts';
import { runCli, startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';
import { simCarrierArgs, startSmscSimProcess, type SmscSimProcess } from '../helpers/smsc-sim-process.ts';
import { storeTargets } from '../helpers/stores.ts';
import { eventually, mobiles, waitForNoBackends } from '../delivery/delivery-helpers.ts';

const postgres = (await storeTargets()).find((t) => t.name === 'postgres');
const RECIPIENTS = 800;
const MOVE_WITHIN_MS = 5000;
/** How long each phase runs after its 5 s of grace (both nodes must submit in it). */
const PHASE_MS = 4000;

describe('a route changed live over two nodes (postgres)', { skip: !postgres && 'no PostgreSQL' }, () => {
  let created: Awaited<ReturnType<NonNullable<typeof postgres>['create']>>;
  let nodes: ServeProcess[] = [];
  let sims: { a: SmscSimProcess; b: SmscSimProcess };
  let store: Store;
  let token: string;

  // This node's submitted count and the shares it holds per carrier, from its /metrics.
  const metricsOf = async (node: ServeProcess) => {
    const text = await (await fetch(`http://127.0.0.1:${node.httpPort}/metrics`)).text();
    const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
    return {
      submitted: value(/^yona_dispatched_messages_total\{[^}]*outcome="submitted"[^}]*\} (\d+)/m),
      sharesA: value(/^yona_carrier_shares_in_use\{[^}]*carrier="a"[^}]*\} (\d+)/m),
      sharesB: value(/^yona_carrier_shares_in_use\{[^}]*carrier="b"[^}]*\} (\d+)/m),
    };
  };
  const submittedPerNode = async () => Promise.all(nodes.map(async (n) => (await metricsOf(n)).submitted));
  const admin = async (...args: string[]) => {
    const run = await runCli(nodes[0].env, ['admin', ...args]);
    assert.equal(run.status, 0, `yona admin ${args.join(' ')}: ${run.stderr}`);
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  before(async () => {
    created = await postgres!.create();
    sims = {
      a: await startSmscSimProcess(['--receipt-delay', '20']),
      b: await startSmscSimProcess(['--receipt-delay', '20']),
    };
    const config = loadConfig({ ...process.env, ...created.env });
    store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    const lines: string[] = [];
    const run = (...args: string[]) => runAdminCommand(store, config, args, (l) => lines.push(l));
    await run('create-account', 'twonoderoute', '--password', 'secret-pw', '--credits', String(RECIPIENTS));
    await run('verify-sender', 'twonoderoute', 'Yona');
    await run('create-token', 'twonoderoute');
    token = lines.at(-1)!;
    for (const [name, sim] of Object.entries(sims)) {
      await run(...simCarrierArgs(name, sim, '--binds', '2', '--window', '10', '--max-tps', '10'));
    }
    await run('add-route', 'default', 'a');
    nodes = await Promise.all(
      // Small batches, so that both nodes take part in the campaign (with batches of 1,000 one node can claim it all).
      ['node-1', 'node-2'].map((name) =>
        startServeProcess(created.env, { YONA_NODE_NAME: name, YONA_DISPATCH_BATCH: '10' }),
      ),
    );
    // Each node holds one bind of each carrier (its fair part of two).
    await eventually(
      async () => {
        const m = await Promise.all(nodes.map(metricsOf));
        return m.every((x) => x.sharesA === 1 && x.sharesB === 1) || undefined;
      },
      30_000,
      'one bind of each carrier on each node',
    );
  });
  after(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    await store?.close();
    await sims?.a.stop();
    await sims?.b.stop();
    await waitForNoBackends(created?.env.DATABASE_URL);
    await created?.cleanup();
  });

  it('add-route and remove-route move the rest of a campaign on both nodes within 5 s, each message once', async () => {
    const phones = mobiles(RECIPIENTS, 547_000_000);
    const res = await fetch(`http://127.0.0.1:${nodes[0].httpPort}/api`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        sms: { user: { username: 'twonoderoute' }, source: 'Yona', destinations: { phone: phones }, message: 'live' },
      }),
    });
    const reply = (await res.json()) as { status: number; campaign_id: number };
    assert.equal(reply.status, 0, JSON.stringify(reply));
    await eventually(async () => (await sims.a.stats()).messagesReceived >= 40 || undefined, 20_000, 'a under way');

    // Phase 2: a more specific route sends the rest to b.
    // Times count from the command's exit (the route is in the store by then; a CLI process takes seconds to
    // start on a busy machine).
    await admin('add-route', '972', 'b');
    const toB = Date.now();
    await sleep(toB + MOVE_WITHIN_MS - Date.now());
    const phase2Start = await submittedPerNode();
    await sleep(PHASE_MS);
    const phase2End = await submittedPerNode();
    // Phase 3: removing it sends the rest back to a.
    await admin('remove-route', '972');
    const toA = Date.now();
    await sleep(toA + MOVE_WITHIN_MS - Date.now());
    const phase3Start = await submittedPerNode();
    await sleep(PHASE_MS);
    const phase3End = await submittedPerNode();
    const phase3EndAt = Date.now();

    await eventually(
      async () => {
        const rows = await store.db
          .selectFrom('messages')
          .select('status')
          .where('campaign_id', '=', reply.campaign_id)
          .execute();
        return rows.every((r) => r.status === 102) || undefined;
      },
      90_000,
      'every message delivered',
    );
    const onA = await sims.a.messages();
    const onB = await sims.b.messages();
    const reachedAt = (list: typeof onA, from: number, to: number) =>
      list.filter((m) => m.receivedAt >= from && m.receivedAt < to).length;
    for (const [i, node] of ['node-1', 'node-2'].entries()) {
      assert.ok(phase2End[i] > phase2Start[i], `${node} kept submitting while the route named b`);
      assert.ok(phase3End[i] > phase3Start[i], `${node} kept submitting once the route was back on a`);
    }
    const lateOn = (list: typeof onA, since: number, to: number) =>
      list.filter((m) => m.receivedAt >= since + MOVE_WITHIN_MS && m.receivedAt < to).map((m) => m.receivedAt - since);
    assert.deepEqual(lateOn(onA, toB, toA), [], 'nothing reached a 5 s after add-route (ms after it)');
    assert.ok(reachedAt(onB, toB + MOVE_WITHIN_MS, toA) > 0, 'b took the campaign after add-route');
    assert.deepEqual(lateOn(onB, toA, phase3EndAt), [], 'nothing reached b 5 s after remove-route (ms after it)');
    assert.ok(reachedAt(onA, toA + MOVE_WITHIN_MS, phase3EndAt) > 0, 'a took the campaign after remove-route');

    const copies = new Map<string, { a: number; b: number }>();
    for (const [list, key] of [
      [onA, 'a'],
      [onB, 'b'],
    ] as const) {
      for (const m of list) {
        const c = copies.get(m.destination) ?? { a: 0, b: 0 };
        c[key]++;
        copies.set(m.destination, c);
      }
    }
    const rows = await store.db
      .selectFrom('messages')
      .select(['phone', 'carrier'])
      .where('campaign_id', '=', reply.campaign_id)
      .execute();
    assert.equal(rows.length, RECIPIENTS);
    for (const { phone, carrier } of rows) {
      const c = copies.get(phone);
      assert.equal((c?.a ?? 0) + (c?.b ?? 0), 1, `${phone} reached the carriers exactly once`);
      assert.ok(carrier === 'a' || carrier === 'b');
      assert.equal(c?.[carrier], 1, `${phone} is on the carrier recorded for it (${carrier})`);
    }
    console.log(
      `# two nodes: a ${onA.length}, b ${onB.length}; submitted per node while on b ${phase2End.map((n, i) => n - phase2Start[i])}, back on a ${phase3End.map((n, i) => n - phase3Start[i])}`,
    );
  });
});
