// Nodes sharing one database: a carrier's shares (binds) spread over the nodes and never in use by two at once,
// a dead node's shares and leadership taken over once its lease runs out, and a clean stop handing them over at
// once. Runs ClusterNode with in-memory carriers against each store (PostgreSQL is where several nodes meet).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ledComponent } from '../../src/cluster/leader.ts';
import { registerNodeMetrics } from '../../src/cluster/metrics.ts';
import { ClusterNode } from '../../src/cluster/node.ts';
import { keepShares } from '../../src/cluster/shares.ts';
import type { Carrier } from '../../src/carriers/types.ts';
import { createLogger } from '../../src/logger.ts';
import type { Service } from '../../src/service.ts';
import { sql } from 'kysely';
import client from 'prom-client';
import { openStore, type Store } from '../../src/store/engine/db.ts';
import { currentLeases } from '../../src/store/nodes.ts';
import { storeTargets } from '../helpers/stores.ts';

// Long enough that a heartbeat (every third of it) delayed by a loaded machine never costs a lease by accident:
// the waits below scale with it.
const LEASE_MS = 3000;
const logger = createLogger('silent');

/** Shares in use, per node, as the in-memory carriers report them; checked on every change. */
class ShareBoard {
  readonly using = new Map<string, number[]>();
  overlaps = 0;
  mostAtOnce = 0;

  carrier(node: string, shares: number): Carrier & { shares: number; useShares(i: number[]): Promise<void> } {
    return {
      name: 'sim',
      protocol: 'smpp',
      inFlightLimit: 1,
      shares,
      useShares: async (indexes) => {
        this.using.set(node, [...indexes]);
        const all = [...this.using.values()].flat();
        if (new Set(all).size !== all.length) this.overlaps++;
        this.mostAtOnce = Math.max(this.mostAtOnce, all.length);
      },
      start: async () => {},
      stop: async () => {},
      submit: async () => ({ ok: false, transient: true, error: 'test' }),
      onReceipt() {},
      onInbound() {},
      onLateAccept() {},
      canSubmit: () => true,
    };
  }

  total(): number {
    return [...this.using.values()].flat().length;
  }
}

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const node = (store: Store, name: string) =>
  new ClusterNode(store, { name, roles: ['dispatcher', 'scheduler'], leaseMs: LEASE_MS }, logger);

for (const target of await storeTargets()) {
  describe(`nodes on one database (${target.name})`, () => {
    const cleanups: Array<() => Promise<void>> = [];
    after(async () => {
      for (const c of cleanups.reverse()) await c().catch(() => {});
    });
    const open = async (env: Record<string, string>) => {
      const store = await openStore({ databaseUrl: env.DATABASE_URL, dataDir: env.YONA_DATA_DIR ?? '' });
      cleanups.push(() => store.close());
      return store;
    };

    it("spreads a carrier's binds over the nodes, never two on one bind, and takes a dead node's binds after its lease", async () => {
      const created = await target.create();
      cleanups.push(created.cleanup);
      const [storeA, storeB] = [await open(created.env), await open(created.env)];
      const board = new ShareBoard();
      const a = node(storeA, 'node-a');
      const b = node(storeB, 'node-b');
      cleanups.push(
        () => a.stop(),
        () => b.stop(),
      );
      await a.start();
      await keepShares(a, board.carrier('node-a', 3), 'dispatcher', logger);
      assert.deepEqual(board.using.get('node-a'), [0, 1, 2], 'alone, a node holds every bind');
      await b.start();
      await keepShares(b, board.carrier('node-b', 3), 'dispatcher', logger);
      // Within a few heartbeats the binds are spread: at most ceil(3 / 2) = 2 each, all 3 in use.
      await until(
        () => (board.using.get('node-b')?.length ?? 0) >= 1 && board.total() === 3,
        5 * LEASE_MS,
        'binds spread over both nodes',
      );
      assert.ok(board.using.get('node-a')!.length <= 2);
      const leases = await currentLeases(storeA.db, Date.now());
      assert.equal(leases.filter((l) => l.name.startsWith('bind:sim#')).length, 3, 'one lease per bind');

      // node-a dies: its store goes away, so its heartbeats fail. It lets go of its binds before they expire,
      // and node-b takes them once they have.
      const registry = new client.Registry();
      registerNodeMetrics(registry, a, storeA);
      const storeErrors = async () =>
        (await registry.getSingleMetric('yona_store_errors_total')!.get()).values.find(
          (v) => v.labels.operation === 'heartbeat',
        )?.value;
      assert.equal(await storeErrors(), 0);
      const diedAt = Date.now();
      await storeA.close();
      await until(() => board.using.get('node-b')?.length === 3, 4 * LEASE_MS, 'node-b holding every bind');
      assert.ok((await storeErrors())! > 0, 'the failed heartbeats counted as store errors');
      assert.ok(Date.now() - diedAt >= LEASE_MS * 0.5, "the binds moved only after the dead node's lease ran out");
      assert.equal(board.using.get('node-a')?.length, 0, 'the dead node let go of its binds');
      assert.equal(board.overlaps, 0, 'no bind was in use on two nodes at once');
      assert.ok(board.mostAtOnce <= 3, `at most 3 binds in use at once (saw ${board.mostAtOnce})`);
    });

    it('hands leadership over: at once when the leader stops, within the lease time when it dies', async () => {
      const created = await target.create();
      cleanups.push(created.cleanup);
      const stores = [await open(created.env), await open(created.env), await open(created.env)];
      const running = new Set<string>();
      const led = (name: string) =>
        ledComponent(
          'scheduler',
          [
            {
              name: 'work',
              start: async () => void running.add(name),
              stop: async () => void running.delete(name),
            },
          ],
          logger,
        );
      const nodes = stores.map((s, i) => node(s, `node-${i}`));
      const components = nodes.map((n) => led(n.name));
      for (const [i, n] of nodes.entries()) {
        await n.start();
        cleanups.push(() => n.stop());
        await components[i].start({ node: n } as unknown as Service);
      }
      assert.deepEqual([...running], ['node-0'], 'the first node leads, alone');
      await new Promise((r) => setTimeout(r, LEASE_MS));
      assert.deepEqual([...running], ['node-0'], 'no second leader while the first beats');

      await components[0].stop();
      await nodes[0].stop();
      await until(() => running.size === 1 && !running.has('node-0'), 2 * LEASE_MS, 'a new leader after a clean stop');
      const second = [...running][0];
      const diedAt = Date.now();
      await stores[Number(second.split('-')[1])].close();
      await until(
        () => running.size === 1 && !running.has(second) && !running.has('node-0'),
        4 * LEASE_MS,
        'a third leader after the second died',
      );
      assert.ok(Date.now() - diedAt >= LEASE_MS * 0.5, "taken over only after the dead leader's lease ran out");
    });

    it('keeps its leases while every connection of its pool is busy for longer than the lease time', {
      skip: target.name !== 'postgres' && 'one connection on SQLite',
    }, async () => {
      const created = await target.create();
      cleanups.push(created.cleanup);
      const store = await openStore({ databaseUrl: created.env.DATABASE_URL, dataDir: '', pgPool: 2 });
      cleanups.push(() => store.close());
      const board = new ShareBoard();
      const n = node(store, 'node-busy');
      cleanups.push(() => n.stop());
      await n.start();
      await keepShares(n, board.carrier('node-busy', 2), 'dispatcher', logger);
      assert.deepEqual(board.using.get('node-busy'), [0, 1]);
      // Both pooled connections sleep for three lease times (a pool taken by long sends and dispatch batches).
      const busy = Promise.all([0, 1].map(() => sql`select pg_sleep(${(3 * LEASE_MS) / 1000})`.execute(store.db)));
      await new Promise((r) => setTimeout(r, 2.5 * LEASE_MS));
      const leases = await currentLeases(store.control, Date.now());
      assert.deepEqual(
        leases
          .filter((l) => l.node === 'node-busy')
          .map((l) => l.name)
          .sort(),
        ['bind:sim#0', 'bind:sim#1'],
      );
      assert.deepEqual(board.using.get('node-busy'), [0, 1], 'no bind let go');
      await busy;
    });
  });
}
