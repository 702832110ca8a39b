// The SMS fallback worker on both stores: a fallback claimed as due (its WhatsApp message undelivered when its
// wait ran out) is still cancelled when the delivery is recorded between the claim and the settling, so the SMS
// never goes after WhatsApp delivered; one still undelivered when it is settled is sent, once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { settleClaimedFallbacks, REACHED, type FallbackWorkerDeps } from '../../src/delivery/whatsapp-fallbacks.ts';
import { createLogger } from '../../src/logger.ts';
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
  });
}
