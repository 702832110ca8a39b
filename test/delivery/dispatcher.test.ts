// The dispatcher on every store, one batch at a time against real SMPP simulators: leases, the blocklist at
// dispatch (201, refunded), prefix routing, retries with backoff, permanent failures (refunded), campaign states.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Router } from '../../src/delivery/routing.ts';
import { SmscSimulator } from '../../src/carriers/simulator/index.ts';
import { SmppCarrier } from '../../src/carriers/smpp/connector.ts';
import { createLogger } from '../../src/logger.ts';
import { claimDueMessages } from '../../src/store/dispatch.ts';
import { deliverySettings } from '../../src/config.ts';
import { Dispatcher } from '../../src/delivery/dispatcher.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { newSender, settleOnClose, simCarrier, stateCounts, type Sender } from './delivery-helpers.ts';

const targets = await storeTargets();
for (const target of targets) {
  describe(`dispatcher (${target.name})`, () => {
    let t: TestService;
    let s: Sender;
    let now = Date.now();
    const sims: SmscSimulator[] = [];
    const carriers = new Map<string, SmppCarrier>();
    let dispatcher: Dispatcher;
    const settings = { ...deliverySettings({}), batchSize: 50, maxAttempts: 3 };

    const messages = (campaignId: number) =>
      t.service.store.db
        .selectFrom('messages')
        .selectAll()
        .where('campaign_id', '=', campaignId)
        .orderBy('id')
        .execute();
    const campaignState = async (id: number) =>
      (await t.service.store.db.selectFrom('campaigns').select('state').where('id', '=', id).executeTakeFirstOrThrow())
        .state;

    before(async () => {
      t = await startTestService(target, { clock: () => now });
      settleOnClose(t);
      s = await newSender(t, 'dispatch1', 1000);
      for (const name of ['a', 'b']) {
        const sim = new SmscSimulator({ systemId: 'yona', password: 'secret', receiptDelayMs: 5 });
        const carrier = new SmppCarrier(simCarrier(await sim.start(0), { name, queueTimeoutMs: 2000 }));
        await carrier.start();
        sims.push(sim);
        carriers.set(name, carrier);
      }
      dispatcher = new Dispatcher({
        store: t.service.store,
        logger: createLogger('silent'),
        signals: t.service.signals,
        clock: () => now,
        carriers,
        routers: new Map([
          [
            'sms',
            new Router(
              [
                { prefix: '97254', carrier: 'b' },
                { prefix: '', carrier: 'a' },
              ],
              ['a', 'b'],
            ),
          ],
        ]),
        settings,
      });
    });
    after(async () => {
      for (const c of carriers.values()) await c.stop();
      for (const sim of sims) await sim.stop();
      await t.close();
    });
    beforeEach(() => {
      now += 3600_000; // every test starts with nothing due from the previous one
    });

    it('routes by the longest prefix, records status -1 and the carrier ids, and finishes the campaign', async () => {
      const reply = await s.sms({ destinations: { phone: ['0521230009', '0541230009'] }, message: 'routed' });
      assert.equal(await campaignState(reply.campaign_id), 'queued');
      assert.equal(await dispatcher.runBatch(), 2);
      const rows = await messages(reply.campaign_id);
      assert.deepEqual(
        rows.map((m) => [m.phone, m.state, m.status, m.carrier, Number(m.attempts)]),
        [
          ['972521230009', 'submitted', -1, 'a', 1],
          ['972541230009', 'submitted', -1, 'b', 1],
        ],
      );
      assert.equal(Number(rows[0].next_attempt_at), now + settings.receiptWindowMs, 'the receipt window deadline');
      assert.equal(sims[0].messages({ to: '972521230009' }).length, 1);
      assert.equal(sims[1].messages({ to: '972541230009' }).length, 1);
      const ids = await t.service.store.db
        .selectFrom('carrier_message_ids')
        .selectAll()
        .where(
          'message_id',
          'in',
          rows.map((r) => r.id),
        )
        .execute();
      assert.deepEqual(ids.map((r) => r.carrier).sort(), ['a', 'b']);
      assert.equal(await campaignState(reply.campaign_id), 'sent');
      assert.equal(await dispatcher.runBatch(), 0, 'nothing left due');
    });

    it('skips a recipient blocked after acceptance with status 201 and refunds it', async () => {
      const reply = await s.sms({
        destinations: { phone: ['0521230019', '0521230029'] },
        message: 'blocked at dispatch',
      });
      const before = await s.balance();
      assert.equal((await s.call('addNumBL', { phones: { phone: ['0521230019'] } })).status, 946);
      await dispatcher.runBatch();
      const rows = await messages(reply.campaign_id);
      assert.deepEqual(
        rows.map((m) => [m.state, m.status, Number(m.cost_credits)]),
        [
          ['skipped', 201, 0],
          ['submitted', -1, 1],
        ],
      );
      assert.equal((await s.balance()).credits, before.credits + 1);
      assert.equal(sims[0].messages({ to: '972521230019' }).length, 0);
      assert.equal(await campaignState(reply.campaign_id), 'sent');
    });

    it('retries a transient refusal with backoff, then submits', async () => {
      const reply = await s.sms({ destinations: { phone: ['0521230039'] }, message: 'retry me' });
      sims[0].failNext(1, 0x08); // ESME_RSYSERR: worth retrying
      await dispatcher.runBatch();
      let [m] = await messages(reply.campaign_id);
      assert.deepEqual(
        [m.state, m.status, Number(m.attempts), Number(m.next_attempt_at)],
        ['queued', null, 1, now + 1000],
      );
      assert.match(m.error ?? '', /ESME_RSYSERR/);
      assert.equal(await campaignState(reply.campaign_id), 'sending');
      assert.equal(await dispatcher.runBatch(), 0, 'not due before its backoff');
      now += 1000;
      assert.equal(await dispatcher.runBatch(), 1);
      [m] = await messages(reply.campaign_id);
      assert.deepEqual([m.state, m.status, Number(m.attempts), m.error], ['submitted', -1, 2, null]);
      assert.equal(await campaignState(reply.campaign_id), 'sent');
    });

    it('fails a permanent refusal (status 1, or 18 for a malformed message) and after too many attempts; each is refunded', async () => {
      const reply = await s.sms({
        destinations: { phone: ['0521230049', '0521230059', '0521230069'] },
        message: 'refused',
      });
      const before = await s.balance();
      sims[0].failNext(2, 0x0b); // ESME_RINVDSTADR: permanent
      await dispatcher.runBatch();
      let rows = await messages(reply.campaign_id);
      assert.deepEqual(
        rows.map((m) => m.state),
        ['failed', 'failed', 'submitted'],
      );
      assert.deepEqual(
        rows.slice(0, 2).map((m) => [m.status, Number(m.cost_credits)]),
        [
          [1, 0],
          [1, 0],
        ],
      );
      assert.equal((await s.balance()).credits, before.credits + 2);

      const again = await s.sms({ destinations: { phone: ['0521230079'] }, message: 'too long for them' });
      sims[0].failNext(1, 0x01); // ESME_RINVMSGLEN: permanent, a malformed message
      await dispatcher.runBatch();
      assert.deepEqual(
        (await messages(again.campaign_id)).map((m) => [m.state, m.status]),
        [['failed', 18]],
      );

      // Refused transiently on every attempt: given up after maxAttempts (3).
      const flaky = await s.sms({ destinations: { phone: ['0521230089'] }, message: 'flaky' });
      const beforeFlaky = await s.balance();
      for (let i = 0; i < 3; i++) {
        sims[0].failNext(1, 0x08);
        await dispatcher.runBatch();
        now += 10_000;
      }
      rows = await messages(flaky.campaign_id);
      assert.deepEqual(
        rows.map((m) => [m.state, m.status, Number(m.attempts)]),
        [['failed', 1, 3]],
      );
      assert.match(rows[0].error ?? '', /gave up after 3 attempts/);
      assert.equal((await s.balance()).credits, beforeFlaky.credits + 1);
      assert.equal(await campaignState(flaky.campaign_id), 'sent');
    });

    it('texts voice sends through the text lanes and leaves their calls to the voice lane, which fails them without a trunk (refunded)', async () => {
      const start = await s.balance();
      const filtered = await s.sms({ destinations: { phone: ['0521230119'] }, message: 'spoken 2', tts: { type: 2 } });
      const all = await s.sms({ destinations: { phone: ['0521230129'] }, message: 'spoken 3', tts: { type: 3 } });
      assert.deepEqual([filtered.status, all.status], [0, 0]);
      assert.equal(await dispatcher.runBatch(), 2, 'the two texts; the call waits for the voice lane');
      assert.deepEqual(await stateCounts(t, filtered.campaign_id), { submitted: 1 });
      assert.deepEqual(await stateCounts(t, all.campaign_id), { submitted: 1, queued: 1 });
      for (const [to, text] of [
        ['972521230119', 'spoken 2'],
        ['972521230129', 'spoken 3'],
      ] as const) {
        assert.deepEqual(
          sims[0].messages({ to }).map((m) => m.text),
          [text],
        );
      }
      const callOnly = await s.sms({ destinations: { phone: ['0521230139'] }, message: 'spoken 4', tts: { type: 4 } });
      assert.deepEqual([callOnly.status, callOnly.calls], [0, 1]);
      assert.equal(await dispatcher.runBatch(), 0, 'the text lanes take no call');
      assert.equal(await dispatcher.runBatch('call'), 2, 'the voice lane takes both calls');
      for (const reply of [all, callOnly]) {
        const [call] = (await messages(reply.campaign_id)).filter((m) => m.channel === 'call');
        assert.deepEqual(
          [call.state, Number(call.status), call.error],
          ['failed', 1, 'no voice trunk routes this destination'],
        );
      }
      assert.deepEqual(
        await s.balance(),
        { ...start, credits: start.credits - 2 },
        'only the two texts are paid for: the failed calls were refunded',
      );
      assert.equal(sims[0].messages({ to: '972521230139' }).length, 0);
    });

    it('a claim holds its messages until the lease expires; then they are claimed again', async () => {
      const reply = await s.sms({ destinations: { phone: ['0521230099', '0521230109'] }, message: 'leased' });
      const { db } = t.service.store;
      const lease = now + 5000;
      const first = await db.transaction().execute((trx) => claimDueMessages(trx, now, lease, 10));
      assert.deepEqual(
        first.map((m) => m.attempts),
        [1, 1],
      );
      assert.equal(await campaignState(reply.campaign_id), 'sending');
      assert.deepEqual(await stateCounts(t, reply.campaign_id), { submitting: 2 });
      const during = await db.transaction().execute((trx) => claimDueMessages(trx, now + 4999, now + 9999, 10));
      assert.equal(during.length, 0, 'held under the lease');
      now += 5000;
      assert.equal(await dispatcher.runBatch(), 2, 'the expired claim is taken again and submitted');
      assert.deepEqual(
        (await messages(reply.campaign_id)).map((m) => [m.state, Number(m.attempts)]),
        [
          ['submitted', 2],
          ['submitted', 2],
        ],
      );
    });
  });
}
