// The birthday worker's send function on every store: a greeting becomes a 'birthday' campaign in the
// worker's transaction, charged, skipping blocked and foreign numbers; an unverified source or too little
// credit throws (the worker retries), an all-blocked greeting sends nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '../../src/domain/errors.ts';
import { createBirthdaySender } from '../../src/operations/send/birthday.ts';
import type { BirthdaySend } from '../../src/delivery/birthdays.ts';
import type { TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { messagesOf, newSender, sendTableCounts, startSendingService, type Sender } from './send-helpers.ts';

const targets = await storeTargets();
for (const target of targets) {
  describe(`birthday sends (${target.name})`, () => {
    let t: TestService;
    let s: Sender;
    let accountId: number;
    const send = async (over: Partial<BirthdaySend> = {}) => {
      const sender = createBirthdaySender(() => ({
        ...t.service.store,
        config: t.config,
        signals: t.service.signals,
        clock: t.service.clock,
      }));
      return t.service.store.db.transaction().execute((trx) =>
        sender(trx, {
          accountId,
          source: 'Yona',
          message: 'Happy birthday!',
          phones: ['972501111111'],
          campaignName: 'bday',
          birthdayCampaignId: 7,
          ...over,
        }),
      );
    };

    before(async () => {
      t = await startSendingService(target);
      s = await newSender(t, 'greeter', 5);
      accountId = await t.accountId('greeter');
      await s.call('addNumBL', { phones: { phone: '0502222222' } });
    });
    after(() => t.close());

    it('queues a charged birthday campaign, leaving out blocked and foreign numbers', async () => {
      const result = (await send({ phones: ['972501111111', '972502222222', '33612345678', '972501111111'] })) as {
        campaignId: number;
      };
      const campaign = await t.service.store.db
        .selectFrom('campaigns')
        .selectAll()
        .where('id', '=', result.campaignId)
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        [campaign.kind, campaign.name, campaign.state, JSON.parse(campaign.options)],
        ['birthday', 'bday', 'queued', { birthday_campaign_id: 7 }],
      );
      assert.deepEqual(
        (await messagesOf(t, result.campaignId)).map((m) => [m.phone, m.text, m.state]),
        [['972501111111', 'Happy birthday!', 'queued']],
      );
      assert.equal((await s.balance()).credits, 4);
    });

    it('sends nothing when every number is blocked; throws on an unverified source or too little credit', async () => {
      const counts = await sendTableCounts(t);
      assert.equal(await send({ phones: ['972502222222'] }), undefined);
      assert.deepEqual(await sendTableCounts(t), counts);
      await assert.rejects(send({ source: 'Stranger' }), (e) => e instanceof ApiError && e.status === 515);
      await assert.rejects(
        send({ phones: ['972501111111', '972503333333', '972504444444', '972505555555', '972506666666'] }),
        (e) => e instanceof ApiError && e.status === 4,
      );
      assert.deepEqual(await sendTableCounts(t), counts);
    });
  });
}
