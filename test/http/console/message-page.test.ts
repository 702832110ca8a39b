// A message's own page over HTTPS, on both stores: sent through the bundled simulator to a push URL that fails
// once, the page shows the whole text and what happened in order (accepted, submitted to the carrier with its id,
// the part's receipt, the delivery status, the dlr push and both attempts with their answers); the log links to
// it; another account gets "not found" for it, as for an id that is no message.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../../src/config.ts';
import { carriersComponent } from '../../../src/delivery/carriers.ts';
import { createPusher } from '../../../src/delivery/pusher.ts';
import { ConsoleClient } from '../../helpers/console-client.ts';
import { startPushReceiver, waitFor, type PushReceiver } from '../../helpers/push-receiver.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { storeTargets } from '../../helpers/stores.ts';
import { newSender } from '../../operations/send-helpers.ts';

const PUSH_ENV = { YONA_PUSH_ALLOW_PRIVATE: '1', YONA_PUSH_RETRY_BASE_MS: '20', YONA_PUSH_POLL_MS: '20' };
const LONG = `Spring sale: ${'everything must go, '.repeat(12)}the end.`;

/** The events table's rows as "event | details" lines, tags removed. */
const eventRows = (html: string) =>
  [
    ...(html.split('<h2>What happened</h2>')[1] ?? '').matchAll(
      /<tr><td[^>]*>(.*?)<\/td><td[^>]*>(.*?)<\/td><td[^>]*>(.*?)<\/td><\/tr>/g,
    ),
  ].map((m) => `${m[2]} | ${m[3].replace(/<br>/g, ' / ').replace(/<[^>]+>/g, '')}`);

for (const target of await storeTargets()) {
  describe(`console message page (${target.name})`, () => {
    let t: TestService;
    let receiver: PushReceiver;
    let ana: ConsoleClient;
    let messageId: number;

    before(async () => {
      // The first push is answered 500, the next ones 200.
      receiver = await startPushReceiver((_push, n) => (n === 0 ? 500 : 200));
      t = await startTestService(target, {
        env: PUSH_ENV,
        components: [
          createPusher({ config: loadConfig(PUSH_ENV) }),
          carriersComponent({ config: loadConfig({}), settings: { pollMs: 20, simulatorReceiptDelayMs: 20 } }),
        ],
      });
      const s = await newSender(t, 'ana');
      await newSender(t, 'ben');
      assert.equal((await s.call('push_url', { type: 'dlr', url: receiver.url })).status, 0);
      const sent = await s.sms({ destinations: { phone: ['0521231100'] }, message: LONG, campaign_name: 'Spring' });
      assert.equal(sent.status, 0, JSON.stringify(sent));
      const row = await t.service.store.db
        .selectFrom('messages')
        .select('id')
        .where('campaign_id', '=', sent.campaign_id)
        .executeTakeFirstOrThrow();
      messageId = Number(row.id);
      await waitFor(() => receiver.received.length >= 2, 'the dlr push, refused once then taken', 20_000);
      ana = new ConsoleClient(t.httpsUrl);
      assert.equal((await ana.login('ana', 'secret-pw')).status, 303);
    });
    after(async () => {
      await t?.close();
      await receiver?.close();
    });

    it('shows the whole text, the status, the carrier, and every event in order', async () => {
      const page = await ana.get(`/console/messages/${messageId}`);
      assert.equal(page.status, 200);
      assert.ok(
        page.text.includes(`<blockquote dir="auto" class="message-text">${LONG}</blockquote>`),
        'the whole text',
      );
      assert.match(page.text, /<dt>Status<\/dt><dd><span class="status-delivered">Delivered: 102 /);
      assert.match(page.text, /<dt>Carrier<\/dt><dd>[^<]+<\/dd>/);
      const rows = eventRows(page.text);
      const kinds = rows.map((r) => r.split(' | ')[0].replace(/Submitted to carrier .*/, 'Submitted to carrier'));
      assert.deepEqual(kinds, [
        'Accepted',
        'Submitted to carrier',
        'Receipt for part 1',
        'Receipt for part 2',
        'Delivery status',
        'Push of status 102',
        'Push attempt',
        'Push attempt',
      ]);
      assert.match(rows[0], /Campaign \d+: 2 parts, 2 credits\./);
      assert.match(rows[1], /Part 1: the carrier’s id \S+\. \/ Part 2: the carrier’s id \S+\./);
      assert.match(rows[2], /\| 102 Delivered/);
      assert.match(rows[3], /\| 102 Delivered/);
      assert.match(rows[4], /\| Delivered: 102 /);
      assert.match(rows[5], /\| 102 Delivered\. Dated \d\d\/\d\d\/\d\d \d\d:\d\d:\d\d; now delivered\./);
      assert.match(rows[6], /The URL answered HTTP 500 in \d+ ms\./);
      assert.match(rows[7], /The URL answered HTTP 200 in \d+ ms\./);
    });

    it('is linked from the message log, where the text is cut to one line with its whole in the tooltip', async () => {
      const log = await ana.get('/console/messages');
      const link = new RegExp(`<a class="clip" dir="auto" href="/console/messages/${messageId}" title="${LONG}">`);
      assert.match(log.text, link);
    });

    it('is not found for another account, nor for an id that is no message', async () => {
      assert.equal((await ana.get(`/console/messages/${messageId}`)).status, 200, 'its own account sees it');
      const ben = new ConsoleClient(t.httpsUrl);
      assert.equal((await ben.login('ben', 'secret-pw')).status, 303);
      const theirs = await ben.get(`/console/messages/${messageId}`);
      assert.equal(theirs.status, 404);
      assert.ok(!theirs.text.includes('Spring sale'), 'nothing of the message shows');
      assert.ok(!theirs.text.includes('0521231100'));
      assert.equal((await ana.get('/console/messages/99999999')).status, 404);
      assert.equal((await ana.get('/console/messages/abc')).status, 404);
    });
  });
}
