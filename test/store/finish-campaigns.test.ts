// Finishing campaigns on PostgreSQL: two dispatcher lanes recording the last two batches of one campaign at the
// same moment must leave it 'sent' (each alone still sees the other's message submitting).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { finishCampaigns } from '../../src/store/dispatch.ts';
import type { TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { newSender, startSendingService } from '../operations/send-helpers.ts';

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

const postgres = (await storeTargets()).filter((target) => target.name === 'postgres');
for (const target of postgres) {
  describe(`finishing campaigns (${target.name})`, () => {
    let t: TestService;
    before(async () => {
      t = await startSendingService(target);
    });
    after(() => t.close());

    it('two lanes committing the last batches of one campaign at once: the campaign ends sent', async () => {
      const s = await newSender(t, 'finisher', 100);
      const reply = await s.sms({ destinations: { phone: ['0501234567', '0521234567'] } });
      const { db } = t.service.store;
      const ids = (
        await db
          .selectFrom('messages')
          .select('id')
          .where('campaign_id', '=', reply.campaign_id)
          .orderBy('id')
          .execute()
      ).map((m) => Number(m.id));
      await db
        .updateTable('messages')
        .set({ state: 'submitting' })
        .where('campaign_id', '=', reply.campaign_id)
        .execute();
      await db.updateTable('campaigns').set({ state: 'sending' }).where('id', '=', reply.campaign_id).execute();
      const recorded = [deferred(), deferred()];
      // Each lane marks its message submitted, waits until the other has too (neither committed), then finishes.
      const lane = (i: number) =>
        db.transaction().execute(async (trx) => {
          await trx.updateTable('messages').set({ state: 'submitted' }).where('id', '=', ids[i]).execute();
          recorded[i].resolve();
          await recorded[1 - i].promise;
          return finishCampaigns(trx, [reply.campaign_id], Date.now());
        });
      const finished = await Promise.all([lane(0), lane(1)]);
      assert.deepEqual(
        finished.flat().map((c) => c.id),
        [reply.campaign_id],
        'exactly one lane finished it',
      );
      const campaign = await db
        .selectFrom('campaigns')
        .select('state')
        .where('id', '=', reply.campaign_id)
        .executeTakeFirstOrThrow();
      assert.equal(campaign.state, 'sent');
    });
  });
}
