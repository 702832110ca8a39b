// `yona admin carriers --status` over several nodes, on both stores: each node's snapshot (as its heartbeat
// writes it) is read from the store; binds up, submits per second, windows and held messages are summed per
// carrier with a line per node, the latest error wins, and the store's retries count in the carrier's queue.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { runAdminCommand } from '../../src/cli/admin.ts';
import { loadConfig } from '../../src/config.ts';
import type { CarrierHealth } from '../../src/delivery/carrier-health.ts';
import { findAccountByUsername } from '../../src/store/accounts.ts';
import { openStore, type Store } from '../../src/store/engine/db.ts';
import { beat } from '../../src/store/nodes.ts';
import { storeTargets } from '../helpers/stores.ts';

const health = (over: Partial<CarrierHealth>): CarrierHealth => ({
  carrier: 'a',
  protocol: 'smpp',
  channel: 'sms',
  canSubmit: true,
  bindsUp: 1,
  bindsHeld: 1,
  bindsWanted: 3,
  submitsPerSecond: 100,
  submitsAccepted: 1000,
  submitsRefused: 0,
  windowInUse: 4,
  windowSize: 10,
  throttled: false,
  paced: false,
  down: false,
  graceMs: 5000,
  held: 0,
  ...over,
});

for (const target of await storeTargets()) {
  describe(`yona admin carriers --status over two nodes (${target.name})`, () => {
    let store: Store | undefined;
    let cleanup: (() => Promise<void>) | undefined;
    after(async () => {
      await store?.close();
      await cleanup?.();
    });

    it('sums the nodes per carrier, shows each node, and counts the store retries in the queue', async () => {
      const created = await target.create();
      cleanup = created.cleanup;
      const config = loadConfig({ ...process.env, DATABASE_URL: '', YONA_CARRIERS_FILE: '', ...created.env });
      store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
      await runAdminCommand(
        store,
        config,
        ['create-account', 'status', '--password', 'secret-pw', '--credits', '10'],
        () => {},
      );
      const account = (await findAccountByUsername(store.db, 'status'))!;
      const now = Date.now();
      const node = (name: string) => ({ name, roles: ['dispatcher'], host: 'h', pid: 1, startedAt: now - 60_000 });
      const snapshot = (carriers: CarrierHealth[]) => JSON.stringify({ at: now - 500, carriers });
      await beat(
        store.db,
        {
          ...node('n1'),
          carrierHealth: snapshot([
            health({ bindsUp: 2, bindsHeld: 2, windowSize: 20, held: 5, heldOldestAcceptedAt: now - 8000 }),
            health({ carrier: 'b', bindsWanted: 1, lastError: { text: 'old error', at: now - 60_000 } }),
          ]),
        },
        now,
        now + 10_000,
      );
      await beat(
        store.db,
        {
          ...node('n2'),
          carrierHealth: snapshot([
            health({ bindsUp: 0, canSubmit: false, down: true, downSince: now - 30_000, submitsPerSecond: 0 }),
            health({
              carrier: 'b',
              bindsHeld: 0,
              bindsUp: 0,
              bindsWanted: 1,
              submitsPerSecond: 0,
              lastError: { text: 'newer error', at: now - 2000 },
            }),
          ]),
        },
        now,
        now + 10_000,
      );
      // Dead: not beating within its lease, so left out.
      await beat(
        store.db,
        { ...node('gone'), carrierHealth: snapshot([health({ bindsUp: 9 })]) },
        now - 20_000,
        now - 10_000,
      );
      // Two messages queued for a retry after failing on a, one accepted 50 s ago.
      const campaign = await store.db
        .insertInto('campaigns')
        .values({
          account_id: account.id,
          name: null,
          kind: 'sms',
          source: 'Yona',
          state: 'sending',
          scheduled_at: null,
          recipients: 2,
          credits_charged: 2,
          agorot_charged: 0,
          options: '{}',
          created_at: now - 50_000,
          released_at: null,
          finished_at: null,
          cancelled_at: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      for (const createdAt of [now - 50_000, now - 10_000])
        await store.db
          .insertInto('messages')
          .values({
            campaign_id: campaign.id,
            account_id: account.id,
            external_id: null,
            phone: '972501234567',
            source: 'Yona',
            text: 'x',
            parts: 1,
            cost_credits: 1,
            cost_agorot: 0,
            state: 'queued',
            status: null,
            status_at: null,
            attempts: 2,
            next_attempt_at: now + 60_000,
            lease_until: null,
            carrier: 'a',
            error: 'ESME_RSYSERR',
            created_at: createdAt,
            submitted_at: null,
          })
          .execute();

      const lines: string[] = [];
      await runAdminCommand(store, config, ['carriers', '--status', '--json'], (l) => lines.push(l));
      const status = JSON.parse(lines[0]);
      assert.deepEqual(
        status.nodes.map((n: { name: string }) => n.name),
        ['n1', 'n2'],
      );
      const a = status.carriers.find((c: { name: string }) => c.name === 'a');
      assert.deepEqual(
        [a.binds_up, a.binds_held, a.binds_wanted, a.submits_per_second, a.window_in_use, a.window_size],
        [2, 3, 3, 100, 8, 30],
      );
      assert.deepEqual([a.held, a.queue_retry, a.queue_length], [5, 2, 7]);
      assert.ok(a.oldest_message_age_ms >= 50_000 && a.oldest_message_age_ms < 60_000, String(a.oldest_message_age_ms));
      assert.equal(a.down, false, 'a bind is up on n1');
      const b = status.carriers.find((c: { name: string }) => c.name === 'b');
      assert.equal(b.binds_up, 1);
      assert.equal(b.last_error.text, 'newer error');

      lines.length = 0;
      await runAdminCommand(store, config, ['carriers', '--status'], (l) => lines.push(l));
      const text = lines.join('\n');
      assert.match(text, /^a +all +2\/3 +100 +8\/30 +no +7 \(2 retry\) +5\d s +-$/m);
      assert.match(text, /^ +n1 +2\/2 +100 +4\/20 +no +5 held +\d+ s +-$/m);
      assert.match(text, /^ +n2 +0\/1 +0 +4\/10 +no +0 held +- +-$/m);
      assert.match(text, /^b +all +1\/1 .* newer error \(.*, \d s ago\)$/m);
      assert.match(text, /^node n1: reported \d+ m?s ago$/m);
      assert.doesNotMatch(text, /gone/);
    });
  });
}
