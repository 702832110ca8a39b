// Push end to end on every store: HTTP sms -> SMPP simulator -> receipt -> exactly one dlr push per message;
// a receiver answering 500 is disabled and, once `yona admin push enable`d, gets each kept dlr once;
// `yona sim mo` -> an incoming_sms push; an unsubscribe-link confirmation -> a blacklist push. Real
// receivers on 127.0.0.1, the bundled carriers and public pages components, and the pusher.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SmscSimulator } from '../../src/carriers/simulator/index.ts';
import { runSim } from '../../src/cli/sim.ts';
import { publicPagesComponent } from '../../src/http/public-pages.ts';
import { findAccountByUsername } from '../../src/store/accounts.ts';
import { createPusher } from '../../src/delivery/pusher.ts';
import { startPushReceiver, waitFor, type PushReceiver } from '../helpers/push-receiver.ts';
import type { TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { loadConfig } from '../../src/config.ts';
import {
  dlrById,
  newSender,
  startDelivery,
  windowAroundNow,
  type DeliveryHarness,
  type Sender,
} from '../delivery/delivery-helpers.ts';
import { whenQuiet } from '../helpers/quiescence.ts';

const ENV = {
  YONA_PUSH_ALLOW_PRIVATE: '1',
  YONA_PUSH_RETRY_BASE_MS: '20',
  YONA_PUSH_MAX_FAILURES: '3',
  YONA_PUSH_POLL_MS: '20',
};
const EVENT_DATE = /^\d\d\/\d\d\/\d\d \d\d:\d\d:\d\d$/;

const targets = await storeTargets();
for (const target of targets) {
  describe(`push end to end (${target.name})`, () => {
    let h: DeliveryHarness;
    let t: TestService;
    let simulator: SmscSimulator;
    let s: Sender;
    const receivers: PushReceiver[] = [];
    const register = async (type: string) => {
      const receiver = await startPushReceiver();
      receivers.push(receiver);
      const reply = await s.call('push_url', { type, url: receiver.url });
      assert.equal(reply.status, 0, JSON.stringify(reply));
      return receiver;
    };

    before(async () => {
      h = await startDelivery(target, {
        sim: { controlPort: 0 },
        env: ENV,
        components: [publicPagesComponent(), createPusher({ config: loadConfig(ENV) })],
      });
      ({ t, simulator } = h);
      s = await newSender(t, 'pushe2e', 1000);
    });
    after(async () => {
      await h.close();
      for (const r of receivers) await r.close();
    });

    it('a send to the simulator produces exactly one dlr push per message, with the fields dlr polling shows', async () => {
      const receiver = await register('dlr');
      const phones: Record<string, string> = { '0521111234': '102', '0521110015': '15', '0521110108': '108' };
      const reply = await s.sms({
        destinations: { phone: Object.keys(phones).map((p) => ({ $: { id: `e2e-${p}` }, _: p })) },
        message: 'push me',
      });
      assert.equal(reply.status, 0, JSON.stringify(reply));
      await waitFor(() => receiver.received.length >= 3, 'three dlr pushes');
      // Receipts are all in: nothing more for 500 ms (25 push polls), or it would be a second push for a message.
      assert.equal(
        await whenQuiet(() => receiver.received.length, 'dlr pushes', { quietMs: 500 }),
        3,
        JSON.stringify(receiver.received.map((p) => p.fields)),
      );
      const polled = await dlrById(
        s,
        Object.keys(phones).map((p) => `e2e-${p}`),
        windowAroundNow(),
      );
      for (const [phone, status] of Object.entries(phones)) {
        const push = receiver.received.find((p) => p.fields.external_id === `e2e-${phone}`);
        assert.ok(push, `a push for ${phone}`);
        assert.equal(push.headers['content-type'], 'application/x-www-form-urlencoded');
        assert.deepEqual(Object.keys(push.fields), [
          'external_id',
          'status',
          'he_message',
          'en_message',
          'date',
          'phone',
          'operaor',
          'operator',
          'shipment_id',
        ]);
        assert.equal(push.fields.status, status);
        assert.equal(push.fields.phone, `972${phone.slice(1)}`);
        assert.equal(push.fields.shipment_id, String(reply.campaign_id));
        assert.equal(push.fields.operaor, push.fields.operator);
        assert.match(push.fields.date, EVENT_DATE);
        const report = polled.get(`e2e-${phone}`)!;
        for (const field of ['status', 'he_message', 'en_message', 'date', 'phone', 'operator', 'shipment_id']) {
          assert.equal(push.fields[field], report[field], `${phone} ${field}`);
        }
      }
    });

    it("a dlr receiver answering 500 is disabled, gets nothing more, and after `push enable` each message's dlr once with 200", async () => {
      const failing = await newSender(t, 'pushe2efail', 1000);
      const receiver = await startPushReceiver(() => 500);
      receivers.push(receiver);
      assert.equal((await failing.call('push_url', { type: 'dlr', url: receiver.url })).status, 0);
      const status = async () => (await failing.call('push_url', { action: 'status', type: 'dlr' })).registrations[0];
      const send = async (phones: string[]) => {
        const reply = await failing.sms({
          destinations: { phone: phones.map((p) => ({ $: { id: `fail-${p}` }, _: p })) },
          message: 'push me later',
        });
        assert.equal(reply.status, 0, JSON.stringify(reply));
      };
      const accountId = (await findAccountByUsername(t.service.store.db, failing.username))!.id;
      const queued = async () =>
        Number(
          (
            await t.service.store.db
              .selectFrom('push_events')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('account_id', '=', accountId)
              .executeTakeFirstOrThrow()
          ).n,
        );

      await send(['0523331001', '0523331002']);
      await waitFor(
        async () => (await status()).state === 'disabled',
        'the registration disabled after 3 failed rounds',
      );
      const refused = receiver.received.length;
      assert.ok(refused >= 3, `three failed rounds reached the receiver, got ${refused} requests`);
      await send(['0523331003']); // its receipt comes while the registration is disabled: kept, not pushed
      await waitFor(async () => (await queued()) === 3, 'three dlr events kept');
      // Nothing for 500 ms (25 poll intervals, well past the backoff): a disabled registration stays silent.
      assert.equal(
        await whenQuiet(() => receiver.received.length, 'pushes', { quietMs: 500 }),
        refused,
        'nothing pushed after disabling',
      );
      assert.equal((await status()).pending_events, 3);

      const answered: Record<string, string>[] = [];
      receiver.respond = (push) => (answered.push(push.fields), 200);
      assert.match((await t.admin('push', 'enable', 'pushe2efail', 'dlr')).join(''), /kept events are delivered/);
      await waitFor(
        async () => (await status()).pending_events === 0 && answered.length >= 3,
        'the kept events delivered',
      );
      await whenQuiet(() => answered.length, 'answered pushes', { quietMs: 500 }); // any repeat would have come
      assert.deepEqual(answered.map((f) => f.external_id).sort(), [
        'fail-0523331001',
        'fail-0523331002',
        'fail-0523331003',
      ]);
      assert.ok(
        answered.every((f) => f.status === '102'),
        JSON.stringify(answered),
      );
      assert.equal(receiver.received.length, refused + 3, 'after enable, only the three kept events were pushed');
      assert.equal((await status()).state, 'registered');
    });

    it('`yona sim mo` produces an incoming_sms push', async () => {
      const receiver = await register('incoming_sms');
      await t.admin('add-number', 'pushe2e', '0559990001');
      await runSim(
        [
          'mo',
          '--from',
          '0527770001',
          '--to',
          '0559990001',
          '--text',
          'שלום & hi',
          '--control',
          `http://127.0.0.1:${simulator.controlPort()}`,
        ],
        () => {},
      );
      await waitFor(() => receiver.received.length === 1, 'the incoming_sms push');
      const { fields } = receiver.received[0];
      assert.deepEqual(Object.keys(fields), ['phone', 'dest', 'message', 'date']);
      assert.deepEqual([fields.phone, fields.dest, fields.message], ['972527770001', '972559990001', 'שלום & hi']);
      assert.match(fields.date, EVENT_DATE);
    });

    it('an unsubscribe-link confirmation produces a blacklist push', async () => {
      const receiver = await register('blacklist');
      const reply = await s.sms({ destinations: { phone: ['0528881234'] }, message: 'Promo', add_unsubscribe: '3' });
      assert.equal(reply.status, 0);
      const row = await t.service.store.db
        .selectFrom('messages')
        .select('unsubscribe_code')
        .where('campaign_id', '=', reply.campaign_id)
        .executeTakeFirstOrThrow();
      const res = await fetch(`${t.httpUrl}/u/${row.unsubscribe_code}`, { method: 'POST' });
      assert.equal(res.status, 200);
      await waitFor(() => receiver.received.length === 1, 'the blacklist push');
      const { fields } = receiver.received[0];
      assert.deepEqual([fields.dest, fields.message], ['972528881234', 'המספר הוסר מרשימת התפוצה']);
      assert.match(fields.date, EVENT_DATE);
    });
  });
}
