// Reply to remove with YONA_REMOVAL_KEYWORDS set to a custom list, on every store: replies through `yona sim mo`
// to a campaign sent with add_unsubscribe 2 block the sender when they are one of the configured words (any case,
// quotes and trailing punctuation ignored), no longer when they are a default word; `blacklist` over HTTP shows
// them, and each block is pushed once to the account's `blacklist` receiver with the documented fields.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SmscSimulator } from '../../src/carriers/simulator/index.ts';
import { runSim } from '../../src/cli/sim.ts';
import { carriersComponent } from '../../src/delivery/carriers.ts';
import { createPusher } from '../../src/delivery/pusher.ts';
import { startPushReceiver, waitFor, type PushReceiver } from '../helpers/push-receiver.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { loadConfig } from '../../src/config.ts';
import {
  eventually,
  newSender,
  settleOnClose,
  simCarrier,
  windowAroundNow,
  type Sender,
} from '../delivery/delivery-helpers.ts';
import { whenQuiet } from '../helpers/quiescence.ts';

const PUSH_ENV = { YONA_PUSH_ALLOW_PRIVATE: '1', YONA_PUSH_RETRY_BASE_MS: '20', YONA_PUSH_POLL_MS: '20' };
const NUMBER = '0559990000';

const targets = await storeTargets();
for (const target of targets) {
  describe(`reply to remove with YONA_REMOVAL_KEYWORDS=BAS,unsubscribe (${target.name})`, () => {
    let t: TestService;
    let simulator: SmscSimulator;
    let s: Sender;
    let receiver: PushReceiver;
    const h = (phone: string) => `972${phone.slice(1)}`;
    const mo = (from: string, text: string) =>
      runSim(
        [
          'mo',
          '--from',
          from,
          '--to',
          NUMBER,
          '--text',
          text,
          '--control',
          `http://127.0.0.1:${simulator.controlPort()}`,
        ],
        () => {},
      );
    /** Sends a campaign and waits until the simulator got it (a reply only counts for a campaign that went out). */
    const campaign = async (phones: string[], unsubscribe: string) => {
      const reply = await s.sms({
        destinations: { phone: phones },
        message: 'sale today',
        add_unsubscribe: unsubscribe,
      });
      assert.equal(reply.status, 0, JSON.stringify(reply));
      await eventually(
        () => phones.every((p) => simulator.messages({ to: h(p) }).length > 0),
        5000,
        'the campaign received',
      );
    };
    const blocked = async () =>
      (await t.service.store.db.selectFrom('blocklist').select(['phone', 'source']).orderBy('phone').execute()).map(
        (r) => [r.phone, r.source],
      );
    const incomingCount = async () => ((await s.call('incoming', windowAroundNow())).transactions as unknown[]).length;

    before(async () => {
      simulator = new SmscSimulator({ systemId: 'yona', password: 'secret', receiptDelayMs: 20, controlPort: 0 });
      const port = await simulator.start(0);
      const carriers = carriersComponent({
        setup: { carriers: [simCarrier(port)], routes: [] },
        settings: { pollMs: 20 },
        config: loadConfig({ YONA_REMOVAL_KEYWORDS: ' BAS , unsubscribe ' }), // read like the environment variable: trimmed, any case
      });
      t = await startTestService(target, {
        env: PUSH_ENV,
        components: [carriers, createPusher({ config: loadConfig(PUSH_ENV) })],
      });
      settleOnClose(t);
      s = await newSender(t, 'unsub1', 1000);
      await t.admin('add-number', 'unsub1', NUMBER);
      receiver = await startPushReceiver();
      assert.equal((await s.call('push_url', { type: 'blacklist', url: receiver.url })).status, 0);
    });
    after(async () => {
      await t?.close();
      await simulator?.stop();
      await receiver?.close();
    });

    it('a configured word blocks the sender; the default words no longer do; `blacklist` lists only the blocked', async () => {
      const [bas, unsubscribe, stop, hasir, remove] = [
        '0528870019',
        '0528870029',
        '0528870039',
        '0528870049',
        '0528870059',
      ];
      await campaign([bas, unsubscribe, stop, hasir, remove], '2');
      const plain = '0528870069';
      await campaign([plain], '0');
      await mo(bas, 'bas');
      await mo(unsubscribe, '"Unsubscribe!"');
      await mo(stop, 'STOP');
      await mo(hasir, 'הסר');
      await mo(remove, 'remove');
      await mo(plain, 'BAS'); // a configured word, but this phone got no reply-to-remove campaign
      await eventually(async () => (await incomingCount()) === 6, 5000, 'six replies stored');
      assert.deepEqual(await blocked(), [
        [h(bas), 'reply-stop'],
        [h(unsubscribe), 'reply-stop'],
      ]);
      const listed = await s.call('blacklist', windowAroundNow());
      assert.deepEqual([listed.status, listed.transactions.length], [0, 2]);
    });

    it('a block by reply is pushed once to the blacklist receiver with dest, message and date', async () => {
      await waitFor(() => receiver.received.length >= 2, 'the two blacklist pushes');
      const phone = '0528870079';
      await campaign([phone], '2');
      await mo(phone, 'Bas.');
      await waitFor(() => receiver.received.length >= 3, 'the third blacklist push');
      await mo(phone, 'bas'); // already blocked: no new entry, no new push
      await eventually(async () => (await incomingCount()) === 8, 5000, 'both replies stored');
      // Nothing for 500 ms (25 push polls): a second push for the same block would have come.
      assert.equal(
        await whenQuiet(() => receiver.received.length, 'blacklist pushes', { quietMs: 500 }),
        3,
        JSON.stringify(receiver.received.map((p) => p.fields)),
      );
      const pushes = receiver.received.map((p) => p.fields);
      assert.deepEqual(pushes.map((f) => f.dest).sort(), ['972528870019', '972528870029', '972528870079']);
      // Each push's date is its block's time: the minute `blacklist` lists for it.
      const listed = (await s.call('blacklist', windowAroundNow())).transactions as Array<{ date: string }>;
      assert.deepEqual(pushes.map((f) => f.date.slice(0, 14)).sort(), listed.map((e) => e.date).sort());
      for (const push of receiver.received) {
        assert.equal(push.headers['content-type'], 'application/x-www-form-urlencoded');
        assert.deepEqual(Object.keys(push.fields), ['dest', 'message', 'date']);
        assert.equal(push.fields.message, 'המספר הוסר מרשימת התפוצה');
        assert.match(push.fields.date, /^\d\d\/\d\d\/\d\d \d\d:\d\d:\d\d$/);
      }
    });
  });
}
