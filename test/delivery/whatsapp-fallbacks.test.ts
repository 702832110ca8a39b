// The SMS fallback worker on both stores: a fallback claimed as due (its WhatsApp message undelivered when its
// wait ran out) is still cancelled when the delivery is recorded between the claim and the settling, so the SMS
// never goes after WhatsApp delivered; one still undelivered when it is settled is sent, once. A WhatsApp message
// still in Yona's queue when its fallback is sent is withdrawn in that transaction (104, refunded once) and no
// dispatcher claim takes it after; one a dispatcher claimed first (even while the fallback was being settled) goes
// on, as does one whose send asked for the SMS at once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { settleClaimedFallbacks, REACHED, type FallbackWorkerDeps } from '../../src/delivery/whatsapp-fallbacks.ts';
import { createLogger } from '../../src/logger.ts';
import { claimDueMessages } from '../../src/store/dispatch.ts';
import { applyLedgerChange } from '../../src/store/ledger.ts';
import { claimDueFallbacks, insertFallbacks } from '../../src/store/whatsapp-fallbacks.ts';
import { DELIVERY } from '../../src/domain/status.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { queueWhatsapp } from '../helpers/whatsapp.ts';
import { newSender } from '../operations/send-helpers.ts';

for (const target of await storeTargets()) {
  describe(`SMS fallbacks settled (${target.name})`, () => {
    let t: TestService;
    let accountId: number;
    let deps: FallbackWorkerDeps;

    /** A WhatsApp message out with the carrier (-1) with a fallback whose wait has run out. */
    const undelivered = async (phone: string, account = accountId) => {
      await queueWhatsapp(t, {
        accountId: account,
        source: '972771234567',
        externalId: phone,
        phone,
        text: 'Your order',
      });
      const { id } = await t.service.store.db
        .selectFrom('messages')
        .select('id')
        .where('external_id', '=', phone)
        .executeTakeFirstOrThrow();
      await t.service.store.db
        .updateTable('messages')
        .set({ state: 'submitted', status: DELIVERY.SUBMITTED })
        .where('id', '=', id)
        .execute();
      const now = Date.now();
      await insertFallbacks(t.service.store.db, [
        {
          messageId: Number(id),
          accountId: account,
          source: 'Yona',
          text: 'Your order',
          sealed: null,
          dueAt: now - 1,
          now,
        },
      ]);
      return Number(id);
    };
    /** A WhatsApp message still in the queue, charged 2 credits, whose fallback (waiting `waitMs`) is due. */
    const queued = async (phone: string, waitMs = 60_000) => {
      await queueWhatsapp(t, { accountId, source: '972771234567', externalId: phone, phone, text: 'Your order' });
      const row = await t.service.store.db
        .selectFrom('messages')
        .select(['id', 'campaign_id'])
        .where('external_id', '=', phone)
        .executeTakeFirstOrThrow();
      const id = Number(row.id);
      const accepted = Date.now() - waitMs - 1;
      await t.service.store.db.updateTable('messages').set({ cost_credits: 2 }).where('id', '=', id).execute();
      await applyLedgerChange(t.service.store.db, {
        accountId,
        currency: 'credits',
        amount: -2,
        reason: `send: WhatsApp campaign ${row.campaign_id}`,
        refType: 'campaign',
        refId: Number(row.campaign_id),
        now: accepted,
      });
      await insertFallbacks(t.service.store.db, [
        {
          messageId: id,
          accountId,
          source: 'Yona',
          text: 'Your order',
          sealed: null,
          dueAt: accepted + waitMs,
          now: accepted,
        },
      ]);
      return id;
    };
    const waMessage = async (id: number) => {
      const m = await t.service.store.db
        .selectFrom('messages')
        .select(['state', 'status', 'cost_credits'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      return { state: m.state, status: m.status === null ? null : Number(m.status), cost: Number(m.cost_credits) };
    };
    const ledgerOf = async (id: number) =>
      (
        await t.service.store.db
          .selectFrom('ledger_entries')
          .select(['amount', 'reason'])
          .where('account_id', '=', accountId)
          .where('ref_type', '=', 'message')
          .where('ref_id', '=', id)
          .execute()
      ).map((e) => [Number(e.amount), e.reason]);
    /** What a dispatcher claim now takes of these messages. */
    const dispatcherTakes = async (ids: number[]) => {
      const now = Date.now();
      const claimed = await t.service.store.db
        .transaction()
        .execute((trx) => claimDueMessages(trx, now + 1, now + 30_000, 1000));
      return claimed.filter((m) => ids.includes(m.id)).map((m) => m.id);
    };
    const claim = async (id: number) => {
      const due = await claimDueFallbacks(t.service.store.db, {
        now: Date.now(),
        leaseMs: 30_000,
        limit: 100,
        reached: REACHED,
      });
      return due.filter((f) => f.messageId === id);
    };
    const fallback = (id: number) =>
      t.service.store.db
        .selectFrom('whatsapp_fallbacks')
        .select(['state', 'sms_message_id'])
        .where('message_id', '=', id)
        .executeTakeFirstOrThrow();
    const smsCampaigns = async () =>
      (
        await t.service.store.db
          .selectFrom('campaigns')
          .select('id')
          .where('kind', '=', 'whatsapp-fallback')
          .where('account_id', '=', accountId)
          .execute()
      ).length;

    before(async () => {
      t = await startTestService(target);
      await newSender(t, 'fbworker', 100);
      accountId = await t.accountId('fbworker');
      deps = {
        store: t.service.store,
        logger: createLogger('silent'),
        signals: t.service.signals,
        clock: Date.now,
        intlPriceAgorot: 10,
      };
    });
    after(() => t.close());

    it('cancels a claimed fallback whose WhatsApp message was delivered after the claim', async () => {
      const id = await undelivered('972521110001');
      const claimed = await claim(id);
      assert.equal(claimed.length, 1);
      await t.service.store.db
        .updateTable('messages')
        .set({ state: 'done', status: DELIVERY.WHATSAPP_DELIVERED })
        .where('id', '=', id)
        .execute();
      const before = await smsCampaigns();
      await settleClaimedFallbacks(deps, claimed, Date.now());
      assert.deepEqual(await fallback(id), { state: 'cancelled', sms_message_id: null });
      assert.equal(await smsCampaigns(), before, 'no SMS written');
    });

    it('sends one still undelivered when settled, once', async () => {
      const id = await undelivered('972521110002');
      const claimed = await claim(id);
      const before = await smsCampaigns();
      await settleClaimedFallbacks(deps, claimed, Date.now());
      await settleClaimedFallbacks(deps, claimed, Date.now());
      assert.equal((await fallback(id)).state, 'sent');
      assert.equal(await smsCampaigns(), before + 1);
    });

    it('cancels one the balance cannot pay, taking nothing', async () => {
      await newSender(t, 'fbbroke', 0);
      const broke = await t.accountId('fbbroke');
      const id = await undelivered('972521110003', broke);
      const claimed = await claim(id);
      await settleClaimedFallbacks(deps, claimed, Date.now());
      assert.deepEqual(await fallback(id), { state: 'cancelled', sms_message_id: null });
      const entries = await t.service.store.db
        .selectFrom('ledger_entries')
        .select('amount')
        .where('account_id', '=', broke)
        .where('reason', 'like', '%fallback%')
        .execute();
      assert.deepEqual(entries, []);
    });

    it('withdraws a WhatsApp message still queued when its SMS goes: 104, refunded once, never dispatched', async () => {
      const id = await queued('972521110004');
      const claimed = await claim(id);
      assert.equal(claimed.length, 1);
      const before = await smsCampaigns();
      await settleClaimedFallbacks(deps, claimed, Date.now());
      await settleClaimedFallbacks(deps, claimed, Date.now());
      const f = await fallback(id);
      assert.equal(f.state, 'sent');
      assert.equal(await smsCampaigns(), before + 1, 'the SMS is written');
      assert.deepEqual(await waMessage(id), { state: 'cancelled', status: 104, cost: 0 });
      assert.deepEqual(await ledgerOf(id), [
        [2, 'refund: the WhatsApp message was withdrawn unsent (its SMS fallback went in its place)'],
      ]);
      assert.deepEqual(await dispatcherTakes([id]), [], 'no dispatcher claim takes it after');
      assert.deepEqual(await waMessage(id), { state: 'cancelled', status: 104, cost: 0 });
    });

    it('leaves one a dispatcher claimed while the fallback was being settled: both go, nothing refunded', async () => {
      const id = await queued('972521110005');
      const claimed = await claim(id);
      let settling: Promise<number> | undefined;
      // The dispatcher's claim holds the message in its transaction while the fallback worker settles.
      const taken = await t.service.store.db.transaction().execute(async (trx) => {
        const now = Date.now();
        const mine = (await claimDueMessages(trx, now + 1, now + 30_000, 1000)).filter((m) => m.id === id);
        settling = settleClaimedFallbacks(deps, claimed, Date.now());
        await new Promise((r) => setTimeout(r, 200));
        return mine.map((m) => m.id);
      });
      await settling;
      assert.deepEqual(taken, [id]);
      assert.equal((await fallback(id)).state, 'sent', 'the SMS goes');
      assert.deepEqual(await waMessage(id), { state: 'submitting', status: null, cost: 2 }, 'WhatsApp goes on');
      assert.deepEqual(await ledgerOf(id), []);
    });

    it('does not withdraw one whose send asked for the SMS at once (after_seconds 0)', async () => {
      const id = await queued('972521110006', 0);
      const claimed = await claim(id);
      await settleClaimedFallbacks(deps, claimed, Date.now());
      assert.equal((await fallback(id)).state, 'sent');
      assert.deepEqual(await waMessage(id), { state: 'queued', status: null, cost: 2 });
      assert.deepEqual(await dispatcherTakes([id]), [id], 'the WhatsApp message is still sent');
    });
  });
}
