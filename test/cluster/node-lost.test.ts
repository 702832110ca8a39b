// A node that stops beating is logged by the nodes that survive it: `node.lost` (docs/logs.md) with the leases it
// held and the node each moved to, once that node took them; a node that stops cleanly is not lost.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { ClusterNode } from '../../src/cluster/node.ts';
import { keepShares } from '../../src/cluster/shares.ts';
import type { Carrier } from '../../src/carriers/types.ts';
import { createLogger } from '../../src/logger.ts';
import { openStore, type Store } from '../../src/store/engine/db.ts';
import { storeTargets } from '../helpers/stores.ts';

const LEASE_MS = 3000;

// An in-memory carrier of `shares` binds.
const carrier = (shares: number): Carrier & { shares: number; useShares(i: number[]): Promise<void> } => ({
  name: 'sim',
  protocol: 'smpp',
  inFlightLimit: 1,
  shares,
  useShares: async () => {},
  start: async () => {},
  stop: async () => {},
  submit: async () => ({ ok: false, transient: true, error: 'test' }),
  onReceipt() {},
  onInbound() {},
  onLateAccept() {},
  canSubmit: () => true,
});

// A logger whose JSON lines are kept.
function capturing(): { logger: ReturnType<typeof createLogger>; lines: () => Array<Record<string, any>> } {
  let text = '';
  const sink = new Writable({
    write(chunk, _enc, done) {
      text += chunk;
      done();
    },
  });
  const logger = createLogger('info', sink);
  return {
    logger,
    lines: () =>
      text
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l)),
  };
}

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

for (const target of await storeTargets()) {
  describe(`a lost node in the log of the others (${target.name})`, () => {
    const cleanups: Array<() => Promise<void>> = [];
    after(async () => {
      for (const c of cleanups.reverse()) await c().catch(() => {});
    });
    const open = async (env: Record<string, string>): Promise<Store> => {
      const store = await openStore({ databaseUrl: env.DATABASE_URL, dataDir: env.YONA_DATA_DIR ?? '' });
      cleanups.push(() => store.close());
      return store;
    };

    it('logs node.lost with the leases the dead node held and where they moved; a clean stop is not a loss', async () => {
      const created = await target.create();
      cleanups.push(created.cleanup);
      const [storeA, storeB, storeC] = [await open(created.env), await open(created.env), await open(created.env)];
      const log = capturing();
      const settings = (name: string) => ({ name, roles: ['dispatcher' as const], leaseMs: LEASE_MS });
      const quiet = createLogger('silent');
      const a = new ClusterNode(storeA, settings('node-a'), quiet);
      const b = new ClusterNode(storeB, settings('node-b'), log.logger);
      const c = new ClusterNode(storeC, settings('node-c'), quiet);
      cleanups.push(
        () => a.stop(),
        () => b.stop(),
        () => c.stop(),
      );
      await a.start();
      await keepShares(a, carrier(2), 'dispatcher', quiet);
      assert.deepEqual(a.leases(), ['bind:sim#0', 'bind:sim#1']);
      await c.start();
      await b.start();
      await keepShares(b, carrier(2), 'dispatcher', log.logger);
      await until(() => b.nodesWith('dispatcher') === 3, 2 * LEASE_MS, 'node-b seeing the other two');

      // node-c stops cleanly: it leaves the list at once, and is no loss.
      await c.stop();
      // node-a dies: its store goes away, its heartbeats end, and its lease runs out.
      const held = a.leases();
      await storeA.close();
      await until(() => log.lines().some((l) => l.event === 'node.lost'), 4 * LEASE_MS, 'a node.lost line');
      const lost = log.lines().filter((l) => l.event === 'node.lost');
      assert.equal(lost.length, 1, JSON.stringify(lost));
      const [line] = lost;
      assert.equal(line.level, 40, 'at warn');
      assert.equal(line.lost_node, 'node-a');
      assert.equal(line.roles, 'dispatcher');
      assert.equal(typeof line.last_heartbeat, 'number');
      assert.deepEqual(line.leases, held);
      // node-b, alone now, took every bind node-a held in the same round.
      assert.deepEqual(line.moved, Object.fromEntries(held.map((l) => [l, 'node-b'])));
      assert.deepEqual(line.unclaimed, []);
      assert.deepEqual(b.leases(), ['bind:sim#0', 'bind:sim#1']);
    });
  });
}
