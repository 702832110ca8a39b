// Time partitions on PostgreSQL (migration 0019, store/partitions.ts): an upgrade keeps every row and puts it in
// its month; a month missing when its rows arrive is created with the rows the default partition held for it; and
// through a running service, the months of a finished campaign past YONA_RETENTION_DAYS are dropped whole while a
// month still holding a scheduled message is kept, and months are created ahead of the service's clock.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { retentionComponent } from '../../src/delivery/retention.ts';
import { formatShort } from '../../src/domain/dates.ts';
import { openStore, type Db, type Store } from '../../src/store/engine/db.ts';
import { migrateToLatest } from '../../src/store/engine/migrate.ts';
import { ensureMonthPartitions, monthPartitions, monthStart, PARTITIONED_TABLES } from '../../src/store/partitions.ts';
import { storeTargets } from '../helpers/stores.ts';
import {
  dlrById,
  eventually,
  newSender,
  startDelivery,
  stateCounts,
  windowAroundNow,
  type DeliveryHarness,
  type Sender,
} from '../delivery/delivery-helpers.ts';

const DAY = 86_400_000;
const postgres = (await storeTargets()).find((t) => t.name === 'postgres');

// Which partition holds each row of `table` with these ids.
async function homes(db: Db, table: 'messages' | 'push_events', ids: number[]): Promise<string[]> {
  const { rows } = await sql<{
    home: string;
  }>`select tableoid::regclass::text as home from ${sql.table(table)} where id in (${sql.join(ids)}) order by id`.execute(
    db,
  );
  return rows.map((r) => r.home);
}

const monthName = (table: string, t: number) => {
  const d = new Date(t);
  return `${table}_p${d.getUTCFullYear()}_${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
};

describe('time partitions (postgres)', { skip: postgres ? false : 'PostgreSQL not reachable' }, () => {
  describe('upgrade and months created on demand', () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    const now = Date.now();
    const longAgo = now - 200 * DAY;

    before(async () => {
      const created = await postgres!.create();
      cleanup = created.cleanup;
      store = await openStore({
        databaseUrl: created.env.DATABASE_URL,
        dataDir: created.env.YONA_DATA_DIR,
        migrate: false,
      });
      await migrateToLatest(store.db, 'postgres', '0018_pending_receipt_call_outcome');
    });
    after(async () => {
      await store?.close();
      await cleanup?.();
    });

    it('an upgrade keeps every message, carrier id and push event, each in the partition of its month', async () => {
      const db = store.db as Db;
      const account = await db
        .insertInto('accounts')
        .values({
          username: 'u',
          name: 'u',
          password_hash: 'x',
          time_zone: 'Asia/Jerusalem',
          created_at: longAgo,
        } as never)
        .returning('id')
        .executeTakeFirstOrThrow();
      const campaign = await db
        .insertInto('campaigns')
        .values({ account_id: account.id, kind: 'sms', source: 'Yona', state: 'sent', created_at: longAgo } as never)
        .returning('id')
        .executeTakeFirstOrThrow();
      const message = (at: number, phone: string) => ({
        campaign_id: campaign.id,
        account_id: account.id,
        phone,
        source: 'Yona',
        text: 'hi',
        parts: 1,
        state: 'done',
        created_at: at,
      });
      const inserted = await db
        .insertInto('messages')
        .values([message(longAgo, '972521000001'), message(now, '972521000002')] as never)
        .returning('id')
        .execute();
      const ids = inserted.map((r) => Number(r.id));
      await db
        .insertInto('carrier_message_ids')
        .values([
          {
            carrier: 'sim',
            carrier_message_id: 'a',
            message_id: ids[0],
            part_index: 0,
            part_status: null,
            created_at: longAgo,
          },
          {
            carrier: 'sim',
            carrier_message_id: 'b',
            message_id: ids[1],
            part_index: 0,
            part_status: null,
            created_at: now,
          },
        ])
        .execute();
      const registration = await db
        .insertInto('push_registrations')
        .values({
          account_id: account.id,
          type: 'dlr',
          url: 'https://example.invalid/',
          state: 'active',
          created_at: longAgo,
        } as never)
        .returning('id')
        .executeTakeFirstOrThrow();
      const event = await db
        .insertInto('push_events')
        .values({
          registration_id: registration.id,
          account_id: account.id,
          type: 'dlr',
          payload: '{}',
          state: 'pending',
          next_attempt_at: 0,
          created_at: longAgo,
        } as never)
        .returning('id')
        .executeTakeFirstOrThrow();

      await migrateToLatest(store.db, 'postgres');

      assert.deepEqual(await homes(db, 'messages', ids), [monthName('messages', longAgo), monthName('messages', now)]);
      assert.deepEqual(await homes(db, 'push_events', [Number(event.id)]), [monthName('push_events', longAgo)]);
      const carrierHomes = await sql<{
        id: string;
        home: string;
      }>`select carrier_message_id as id, tableoid::regclass::text as home from carrier_message_ids order by 1`.execute(
        db,
      );
      assert.deepEqual(carrierHomes.rows, [
        { id: 'a', home: monthName('carrier_message_ids', longAgo) },
        { id: 'b', home: monthName('carrier_message_ids', now) },
      ]);
      // Every month from the oldest row's to two ahead, for each table.
      for (const table of PARTITIONED_TABLES) {
        const months = await monthPartitions(db, table);
        assert.equal(months[0].from, monthStart(longAgo), table);
        assert.equal(months.at(-1)!.from, monthStart(now, 2), table);
        for (let i = 1; i < months.length; i++)
          assert.equal(months[i].from, months[i - 1].to, `${table}: months follow one another`);
      }
      // New rows take ids after the copied ones, and the unsubscribe-code lookup still finds its message.
      const next = await db
        .insertInto('messages')
        .values({ ...message(now, '972521000003'), unsubscribe_code: 'code-1' } as never)
        .returning('id')
        .executeTakeFirstOrThrow();
      assert.ok(Number(next.id) > Math.max(...ids));
      const byCode = await db.selectFrom('messages').select('phone').where('unsubscribe_code', '=', 'code-1').execute();
      assert.deepEqual(
        byCode.map((r) => r.phone),
        ['972521000003'],
      );
    });

    it('a row past the months created lands in the default partition and moves into its month when that is created', async () => {
      const db = store.db as Db;
      const later = monthStart(now, 5) + 3 * DAY;
      const { campaign_id, account_id } = await db
        .selectFrom('messages')
        .select(['campaign_id', 'account_id'])
        .limit(1)
        .executeTakeFirstOrThrow();
      const row = await db
        .insertInto('messages')
        .values({
          campaign_id,
          account_id,
          phone: '972521000004',
          source: 'Yona',
          text: 'later',
          parts: 1,
          state: 'queued',
          created_at: later,
        } as never)
        .returning('id')
        .executeTakeFirstOrThrow();
      assert.deepEqual(await homes(db, 'messages', [Number(row.id)]), ['messages_default']);

      const created = await ensureMonthPartitions(db, later, 0);
      assert.deepEqual(
        created,
        PARTITIONED_TABLES.map((t) => monthName(t, later)),
      );
      assert.deepEqual(await homes(db, 'messages', [Number(row.id)]), [monthName('messages', later)]);
      const left = await sql<{ n: number }>`select count(*)::int as n from messages_default`.execute(db);
      assert.equal(left.rows[0].n, 0);
      assert.deepEqual(await ensureMonthPartitions(db, later, 0), [], 'a month is created once');
    });
  });

  describe('retention drops whole months through a running service', () => {
    let h: DeliveryHarness;
    let s: Sender;
    let offset = -150 * DAY; // how far the service's clock runs behind the real one
    const start = Date.now();

    before(async () => {
      h = await startDelivery(postgres!, {
        clock: () => Date.now() + offset,
        env: { YONA_RETENTION_DAYS: '30' },
        components: [retentionComponent({ intervalMs: 100 })],
      });
      s = await newSender(h.t, 'keeper');
    });
    after(() => h?.close());

    const months = async (table: (typeof PARTITIONED_TABLES)[number]) =>
      (await monthPartitions(h.t.service.store.db, table)).map((p) => p.name);

    it("a finished campaign's month goes once past 30 days; a month holding a scheduled message stays", async () => {
      const db = h.t.service.store.db;
      const sentAt = start + offset;
      // Months are created ahead of the service's clock, not only of the real one.
      await eventually(
        async () => (await months('messages')).includes(monthName('messages', sentAt)),
        10_000,
        'the month of the service clock created',
      );

      const old = await s.sms({
        destinations: {
          phone: [
            { _: '0521000009', $: { id: 'old-1' } },
            { _: '0521000019', $: { id: 'old-2' } },
          ],
        },
        message: 'five months ago',
      });
      assert.equal(old.status, 0, JSON.stringify(old));
      await eventually(
        async () => (await stateCounts(h.t, old.campaign_id)).done === 2,
        15_000,
        'the old campaign delivered',
      );
      assert.equal((await dlrById(s, ['old-1', 'old-2'], windowAroundNow(sentAt))).size, 2);
      const oldIds = (
        await db.selectFrom('messages').select('id').where('campaign_id', '=', old.campaign_id).execute()
      ).map((r) => Number(r.id));
      assert.deepEqual(
        await homes(db, 'messages', oldIds),
        oldIds.map(() => monthName('messages', sentAt)),
      );

      // 50 days later (still 100 days ago): a campaign scheduled for a day after today.
      offset = -100 * DAY;
      const scheduledAt = start + offset;
      await eventually(
        async () => (await months('messages')).includes(monthName('messages', scheduledAt)),
        10_000,
        'the month of the scheduled campaign created',
      );
      const timing = formatShort(start + DAY, 'Asia/Jerusalem');
      const scheduled = await s.sms({ destinations: { phone: '0521000039' }, message: 'tomorrow', timing });
      assert.equal(scheduled.status, 0, JSON.stringify(scheduled));

      // Today: both months are past 30 days.
      offset = 0;
      await eventually(
        async () => !(await months('messages')).includes(monthName('messages', sentAt)),
        10_000,
        'the old month dropped',
      );
      assert.deepEqual(await stateCounts(h.t, old.campaign_id), {});
      assert.equal(
        (await dlrById(s, ['old-1', 'old-2'], windowAroundNow(sentAt))).size,
        0,
        'dlr no longer reports dropped messages',
      );
      await eventually(
        async () => !(await months('carrier_message_ids')).includes(monthName('carrier_message_ids', sentAt)),
        10_000,
        'its carrier ids gone with it',
      );
      // The scheduled message keeps its month (and the carrier ids of months up to it), whatever its age.
      assert.ok((await months('messages')).includes(monthName('messages', scheduledAt)));
      assert.ok((await months('carrier_message_ids')).includes(monthName('carrier_message_ids', scheduledAt)));
      assert.deepEqual(await stateCounts(h.t, scheduled.campaign_id), { scheduled: 1 });
      for (const table of PARTITIONED_TABLES) {
        assert.ok(
          (await months(table)).includes(monthName(table, monthStart(start, 2))),
          `${table}: two months ahead of today`,
        );
      }
      // What was charged stays charged.
      assert.equal(Number((await s.call('balance', {})).balance), 997);
    });
  });
});
