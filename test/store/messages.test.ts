// The message store on every store: multi-row inserts across chunk boundaries (500 rows on SQLite, 10,000 on
// PostgreSQL), the temp_bl look-back, and refundMessage (once only, whatever the caller retries).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { insertCampaign } from '../../src/store/campaigns.ts';
import { insertMessages, recentlyMessagedPhones, refundMessage, type NewMessage } from '../../src/store/messages.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';

const targets = await storeTargets();
for (const target of targets) {
  describe(`message store (${target.name})`, () => {
    let t: TestService;
    let accountId: number;
    const db = () => t.service.store.db;
    const credits = async () =>
      Number(
        (await db().selectFrom('accounts').select('credits').where('id', '=', accountId).executeTakeFirstOrThrow())
          .credits,
      );
    const campaign = () =>
      insertCampaign(db(), {
        accountId,
        name: null,
        kind: 'sms',
        source: 'Yona',
        state: 'queued',
        scheduledAt: null,
        recipients: 0,
        creditsCharged: 0,
        agorotCharged: 0,
        options: {},
        now: 1000,
      });
    const row = (i: number, over: Partial<NewMessage> = {}): NewMessage => ({
      phone: `97250${String(i).padStart(7, '0')}`,
      externalId: i % 2 ? `e${i}` : null,
      source: 'Yona',
      text: `text ${i}`,
      parts: 1,
      costCredits: 1,
      costAgorot: 0,
      unsubscribeCode: null,
      ...over,
    });

    before(async () => {
      t = await startTestService(target);
      await t.account('storeuser');
      accountId = await t.accountId('storeuser');
    });
    after(() => t.close());

    it('inserts 10,501 rows across chunk boundaries with every column in place', async () => {
      const campaignId = await campaign();
      await insertMessages(
        db(),
        { campaignId, accountId, state: 'scheduled', nextAttemptAt: 5000, now: 1000 },
        Array.from({ length: 10_501 }, (_, i) => row(i)),
      );
      const rows = await db()
        .selectFrom('messages')
        .selectAll()
        .where('campaign_id', '=', campaignId)
        .orderBy('id')
        .execute();
      assert.equal(rows.length, 10_501);
      const last = rows[10_500];
      assert.deepEqual(
        [
          last.phone,
          last.external_id,
          last.text,
          last.state,
          Number(last.next_attempt_at),
          Number(last.created_at),
          Number(last.account_id),
        ],
        ['972500010500', null, 'text 10500', 'scheduled', 5000, 1000, accountId],
      );
      assert.equal(rows[9_999].external_id, 'e9999');
      assert.equal(new Set(rows.map((r) => r.phone)).size, 10_501);
    });

    it('finds the numbers messaged since a time (when sent, else when due), ignoring scheduled and cancelled messages', async () => {
      const campaignId = await campaign();
      const common = { campaignId, accountId, now: 1_000 };
      await insertMessages(db(), { ...common, state: 'queued', nextAttemptAt: 10_000 }, [
        row(1, { phone: '972531000001' }),
      ]);
      await insertMessages(db(), { ...common, state: 'queued', nextAttemptAt: 5_000 }, [
        row(2, { phone: '972531000002' }),
      ]);
      await insertMessages(db(), { ...common, state: 'scheduled', nextAttemptAt: 10_000 }, [
        row(3, { phone: '972531000003' }),
      ]);
      await insertMessages(db(), { ...common, state: 'queued', nextAttemptAt: 5_000 }, [
        row(5, { phone: '972531000005' }),
      ]);
      await db()
        .updateTable('messages')
        .set({ state: 'submitted', submitted_at: 9_500 })
        .where('phone', '=', '972531000005')
        .execute();
      const found = await recentlyMessagedPhones(
        db(),
        accountId,
        ['972531000001', '972531000002', '972531000003', '972531000004', '972531000005'],
        9_000,
      );
      assert.deepEqual([...found].sort(), ['972531000001', '972531000005']);
    });

    it('refundMessage credits a message back once, however often it is called', async () => {
      const campaignId = await campaign();
      await insertMessages(db(), { campaignId, accountId, state: 'queued', nextAttemptAt: 0, now: 1 }, [
        row(7, { costCredits: 3 }),
      ]);
      const message = await db()
        .selectFrom('messages')
        .selectAll()
        .where('campaign_id', '=', campaignId)
        .executeTakeFirstOrThrow();
      const before = await credits();
      assert.deepEqual(await refundMessage(db(), message, 'refund: test', 2), { credits: 3, agorot: 0 });
      assert.deepEqual(await refundMessage(db(), message, 'refund: test', 3), { credits: 0, agorot: 0 });
      assert.equal(await credits(), before + 3);
      const ledger = await db()
        .selectFrom('ledger_entries')
        .selectAll()
        .where('ref_type', '=', 'message')
        .where('ref_id', '=', message.id)
        .execute();
      assert.deepEqual(
        ledger.map((l) => [Number(l.amount), l.reason, l.currency]),
        [[3, 'refund: test', 'credits']],
      );
    });
  });
}
