// Retention (YONA_RETENTION_DAYS) on every store: once a finished campaign is older than the retention period, the
// sweep removes it with its messages and carrier ids, and `dlr` no longer reports them; a recent campaign and a
// scheduled one stay, the ledger keeps every charge, and inbound messages past the period go too.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formatShort } from '../../src/domain/dates.ts';
import { retentionComponent } from '../../src/delivery/retention.ts';
import { storeTargets } from '../helpers/stores.ts';
import {
  dlrById,
  eventually,
  newSender,
  startDelivery,
  stateCounts,
  type DeliveryHarness,
  type Sender,
} from './delivery-helpers.ts';
import { creditLedger } from '../operations/send-helpers.ts';

const DAY = 86_400_000;

for (const target of await storeTargets()) {
  describe(`retention (${target.name})`, () => {
    let h: DeliveryHarness;
    let s: Sender;
    let offset = 0; // how far the service's clock runs ahead of the real one
    const started = Date.now();

    before(async () => {
      h = await startDelivery(target, {
        clock: () => Date.now() + offset,
        env: { YONA_RETENTION_DAYS: '30' },
        components: [retentionComponent({ intervalMs: 100 })],
      });
      s = await newSender(h.t, 'keeper');
    });
    after(() => h?.close());

    const campaignExists = async (id: number) =>
      (await h.t.service.store.db.selectFrom('campaigns').select('id').where('id', '=', id).executeTakeFirst()) !==
      undefined;
    const carrierIds = async (ids: number[]) =>
      (
        await h.t.service.store.db
          .selectFrom('carrier_message_ids')
          .select('message_id')
          .where('message_id', 'in', ids)
          .execute()
      ).length;

    it('removes a finished campaign past 30 days with its messages; keeps recent and scheduled ones and the ledger', async () => {
      const old = await s.sms({
        destinations: {
          phone: [
            { _: '0521000009', $: { id: 'old-1' } },
            { _: '0521000019', $: { id: 'old-2' } },
          ],
        },
        message: 'from last month',
      });
      assert.equal(old.status, 0, JSON.stringify(old));
      await eventually(
        async () => (await stateCounts(h.t, old.campaign_id)).done === 2,
        15_000,
        'the old campaign delivered',
      );
      assert.equal((await dlrById(s, ['old-1', 'old-2'])).size, 2);
      const oldMessageIds = (
        await h.t.service.store.db
          .selectFrom('messages')
          .select('id')
          .where('campaign_id', '=', old.campaign_id)
          .execute()
      ).map((r) => Number(r.id));
      assert.equal(await carrierIds(oldMessageIds), 2);

      // 31 days later (the service's clock): a new campaign, and one scheduled for the day after.
      offset = 31 * DAY;
      const recent = await s.sms({ destinations: { phone: '0521000029' }, message: 'this month' });
      assert.equal(recent.status, 0, JSON.stringify(recent));
      const timing = formatShort(started + offset + DAY, 'Asia/Jerusalem');
      const scheduled = await s.sms({ destinations: { phone: '0521000039' }, message: 'tomorrow', timing });
      assert.equal(scheduled.status, 0, JSON.stringify(scheduled));

      await eventually(
        async () => !(await campaignExists(old.campaign_id)),
        10_000,
        'the old campaign removed by the sweep',
      );
      assert.deepEqual(await stateCounts(h.t, old.campaign_id), {});
      assert.equal(await carrierIds(oldMessageIds), 0);
      assert.equal((await dlrById(s, ['old-1', 'old-2'])).size, 0, 'dlr no longer reports removed messages');
      assert.ok(await campaignExists(recent.campaign_id));
      assert.ok(await campaignExists(scheduled.campaign_id));
      assert.deepEqual(await stateCounts(h.t, scheduled.campaign_id), { scheduled: 1 });
      // The charges stay in the ledger, and the balance is what it was.
      assert.deepEqual(await creditLedger(h.t, 'keeper'), [1000, -1, -1, -2]);
      assert.equal(Number((await s.call('balance', {})).balance), 996);
    });

    it('removes inbound messages older than the period and keeps newer ones', async () => {
      const db = h.t.service.store.db;
      const accountId = await h.t.accountId('keeper');
      const now = Date.now() + offset;
      for (const [text, at] of [
        ['long ago', now - 40 * DAY],
        ['yesterday', now - DAY],
      ] as const) {
        await db
          .insertInto('inbound_messages')
          .values({
            account_id: accountId,
            phone: '972521000049',
            dest: '0500000000',
            text,
            carrier: 'sim',
            received_at: at,
          })
          .execute();
      }
      await eventually(
        async () =>
          (await db.selectFrom('inbound_messages').select('text').where('account_id', '=', accountId).execute())
            .length === 1,
        10_000,
        'the old inbound message removed',
      );
      const left = await db.selectFrom('inbound_messages').select('text').where('account_id', '=', accountId).execute();
      assert.deepEqual(
        left.map((r) => r.text),
        ['yesterday'],
      );
    });
  });
}
