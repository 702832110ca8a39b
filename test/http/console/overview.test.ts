// The overview answers "how am I doing" (sends and credits today and this month, the last 7 days' delivery rate,
// the last campaigns, failing push URLs, the low-balance warning at the customer's level), and the balance page's
// ledger downloads as CSV; on both stores, over HTTPS without a browser.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConsoleClient } from '../../helpers/console-client.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { storeTargets } from '../../helpers/stores.ts';
import { newSender } from '../../operations/send-helpers.ts';

for (const target of await storeTargets()) {
  describe(`console overview (${target.name})`, () => {
    let t: TestService;
    let web: ConsoleClient;

    before(async () => {
      t = await startTestService(target, { env: { YONA_PUSH_ALLOW_PRIVATE: '1' } });
      const s = await newSender(t, 'lea', 1500);
      const phones = Array.from({ length: 1200 }, (_, i) => `0521${String(i).padStart(6, '0')}`);
      const sent = await s.sms({ destinations: { phone: phones }, message: 'Hello', campaign_name: 'Big' });
      assert.equal(sent.status, 0, JSON.stringify(sent));
      const db = t.service.store.db;
      const now = Date.now();
      // Outcomes as receipts leave them: 1,000 delivered, 200 not.
      const ids = (await db.selectFrom('messages').select('id').orderBy('id').execute()).map((r) => Number(r.id));
      await db
        .updateTable('messages')
        .set({ state: 'done', status: 102, status_at: now })
        .where('id', 'in', ids.slice(0, 1000))
        .execute();
      await db
        .updateTable('messages')
        .set({ state: 'done', status: 101, status_at: now })
        .where('id', 'in', ids.slice(1000))
        .execute();
      await s.call('push_url', { type: 'dlr', url: 'https://lea.example/hook' });
      await db.updateTable('push_registrations').set({ consecutive_failures: 3, last_failure_at: now }).execute();
      web = new ConsoleClient(t.httpsUrl);
      assert.equal((await web.login('lea', 'secret-pw')).status, 303);
    });
    after(() => t?.close());

    it('shows sends and credits today and this month, the delivery rate, the last campaign and the failing push URL', async () => {
      const page = (await web.get('/console')).text;
      assert.match(page, /Today<b>1,200 messages, 1,200 credits<\/b>/);
      assert.match(page, /This month<b>1,200 messages, 1,200 credits<\/b>/);
      assert.match(page, /Delivery rate, last 7 days<b>83\.3%<\/b>/);
      assert.match(page, /1,000 of 1,200 delivered/);
      assert.match(page, /<a href="\/console\/campaigns\/\d+">\d+ · <span dir="auto">Big<\/span><\/a>/);
      assert.match(page, /dlr: https:\/\/lea\.example\/hook has failed 3 times in a row/);
      assert.doesNotMatch(page, /Low balance/);
      const push = (await web.get('/console/push')).text;
      assert.match(push, /Failing: the last 3 delivery rounds failed/);
      assert.doesNotMatch(push, /Registered: events are delivered/);
    });

    it('warns below the level set on the balance page, and refuses a level that is not a number', async () => {
      await web.get('/console/balance');
      const bad = await web.post('/console/balance/low-balance', { credits: 'lots' });
      assert.match(bad.location ?? '', /error=lowBalanceBad/);
      const saved = await web.post('/console/balance/low-balance', { credits: '1,000' });
      assert.match(saved.location ?? '', /ok=lowBalanceSaved/);
      assert.match(
        (await web.get('/console')).text,
        /Low balance: 300 credits left, below your warning level of 1,000/,
      );
      await web.get('/console/balance');
      await web.post('/console/balance/low-balance', { credits: '' });
      assert.doesNotMatch((await web.get('/console')).text, /Low balance/);
    });

    it('downloads the ledger as CSV with a BOM and one header row', async () => {
      const csv = await web.get('/console/balance/ledger.csv');
      assert.equal(csv.status, 200);
      assert.deepEqual([...csv.bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
      const lines = csv.text.slice(1).split('\r\n').filter(Boolean);
      assert.equal(lines[0], 'time,currency,amount,amount_shekels,reason,ref_type,ref_id');
      assert.ok(
        lines.some((l) => /,credits,-1200,/.test(l)),
        lines.join('\n'),
      );
    });
  });
}
