// Blocking a number has one owner (blockNumbers): its three public entry points have the same effect, on every
// store. addNumBL over HTTP, the removal link confirmed over HTTP (add_unsubscribe 3) and a STOP reply over SMPP
// from the simulator (add_unsubscribe 2) each leave one blocklist row with their source, one `blacklist` push with
// the same fields, and a `blacklist` listing; doing it again adds nothing and pushes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SmscSimulator } from '../../src/carriers/simulator/index.ts';
import { runSim } from '../../src/cli/sim.ts';
import { publicPagesComponent } from '../../src/http/public-pages.ts';
import { createPusher } from '../../src/delivery/pusher.ts';
import { startPushReceiver, waitFor, type PushReceiver } from '../helpers/push-receiver.ts';
import type { TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { loadConfig } from '../../src/config.ts';
import {
  eventually,
  newSender,
  startDelivery,
  windowAroundNow,
  type DeliveryHarness,
  type Sender,
} from '../delivery/delivery-helpers.ts';
import { whenQuiet } from '../helpers/quiescence.ts';

const ENV = { YONA_PUSH_ALLOW_PRIVATE: '1', YONA_PUSH_RETRY_BASE_MS: '20', YONA_PUSH_POLL_MS: '20' };
const NUMBER = '0559990011';

const targets = await storeTargets();
for (const target of targets) {
  describe(`blocking a number through each entry point (${target.name})`, () => {
    let h: DeliveryHarness;
    let t: TestService;
    let simulator: SmscSimulator;
    let s: Sender;
    let receiver: PushReceiver;
    const intl = (phone: string) => `972${phone.slice(1)}`;

    /** Sends a campaign to one phone and waits until the simulator got it; returns its message's removal code. */
    const campaign = async (phone: string, unsubscribe: string): Promise<string | null> => {
      const reply = await s.sms({
        destinations: { phone: [phone] },
        message: 'sale today',
        add_unsubscribe: unsubscribe,
      });
      assert.equal(reply.status, 0, JSON.stringify(reply));
      await eventually(() => simulator.messages({ to: intl(phone) }).length > 0, 5000, 'the campaign received');
      const row = await t.service.store.db
        .selectFrom('messages')
        .select('unsubscribe_code')
        .where('campaign_id', '=', reply.campaign_id)
        .executeTakeFirstOrThrow();
      return row.unsubscribe_code;
    };
    const incomingCount = async () => ((await s.call('incoming', windowAroundNow())).transactions as unknown[]).length;

    // The three entry points, each through its real interface.
    const byApi = async (phone: string) => {
      const reply = await s.call('addNumBL', { phones: { phone: [phone] } });
      assert.equal(reply.status, 946, JSON.stringify(reply));
    };
    const byLink = async (code: string) => {
      const res = await fetch(`${t.httpUrl}/u/${code}`, { method: 'POST' });
      assert.equal(res.status, 200);
    };
    let replies = 0;
    const byReply = async (phone: string) => {
      await runSim(
        [
          'mo',
          '--from',
          phone,
          '--to',
          NUMBER,
          '--text',
          'STOP',
          '--control',
          `http://127.0.0.1:${simulator.controlPort()}`,
        ],
        () => {},
      );
      replies++;
      await eventually(async () => (await incomingCount()) === replies, 5000, 'the reply stored');
    };

    before(async () => {
      h = await startDelivery(target, {
        sim: { controlPort: 0 },
        env: ENV,
        components: [publicPagesComponent(), createPusher({ config: loadConfig(ENV) })],
      });
      ({ t, simulator } = h);
      s = await newSender(t, 'blocker', 1000);
      await t.admin('add-number', 'blocker', NUMBER);
      receiver = await startPushReceiver();
      assert.equal((await s.call('push_url', { type: 'blacklist', url: receiver.url })).status, 0);
    });
    after(async () => {
      await h?.close();
      await receiver?.close();
    });

    it('addNumBL, the removal link and a STOP reply each block once, with the same push and listing', async () => {
      const [apiPhone, linkPhone, replyPhone] = ['0528860011', '0528860022', '0528860033'];
      const code = await campaign(linkPhone, '3');
      assert.ok(code);
      await campaign(replyPhone, '2');

      await byApi(apiPhone);
      await byLink(code);
      await byReply(replyPhone);

      const rows = await t.service.store.db
        .selectFrom('blocklist')
        .select(['phone', 'source'])
        .orderBy('phone')
        .execute();
      assert.deepEqual(
        rows.map((r) => [r.phone, r.source]),
        [
          [intl(apiPhone), 'api'],
          [intl(linkPhone), 'unsubscribe-link'],
          [intl(replyPhone), 'reply-stop'],
        ],
      );
      await waitFor(() => receiver.received.length >= 3, 'a blacklist push per block');
      const pushes = receiver.received.map((p) => p.fields);
      assert.deepEqual(pushes.map((f) => f.dest).sort(), [intl(apiPhone), intl(linkPhone), intl(replyPhone)]);
      for (const fields of pushes) {
        assert.deepEqual(Object.keys(fields), ['dest', 'message', 'date']);
        assert.equal(fields.message, 'המספר הוסר מרשימת התפוצה');
        assert.match(fields.date, /^\d\d\/\d\d\/\d\d \d\d:\d\d:\d\d$/);
      }
      const events = await t.service.store.db
        .selectFrom('push_events')
        .select(['type'])
        .where('type', '=', 'blacklist')
        .execute();
      assert.equal(events.length, 3);
      const listed = await s.call('blacklist', windowAroundNow());
      assert.deepEqual([listed.status, listed.transactions.length], [0, 3]);

      // Again through each: already blocked, so no new row, no new event, no new push.
      await byApi(apiPhone);
      await byLink(code);
      await byReply(replyPhone);
      // Nothing new for 500 ms (25 push polls): a second push for any block would have come.
      await whenQuiet(() => receiver.received.length, 'blacklist pushes', { quietMs: 500 });
      assert.equal((await t.service.store.db.selectFrom('blocklist').select('phone').execute()).length, 3);
      assert.equal(
        (await t.service.store.db.selectFrom('push_events').select('type').where('type', '=', 'blacklist').execute())
          .length,
        3,
      );
      assert.equal(receiver.received.length, 3, JSON.stringify(receiver.received.map((p) => p.fields)));
    });
  });
}
