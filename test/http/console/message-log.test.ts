// The message log and its CSV export over HTTPS without a browser, on both stores: each filter narrows to the
// messages it names, pages follow one another without gap or repeat, a bad filter is named (and a bad export is
// refused with 400), the CSV has the page's rows with a BOM and one header, and one-time codes stay masked.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConsoleClient } from '../../helpers/console-client.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { storeTargets } from '../../helpers/stores.ts';
import { newSender } from '../../operations/send-helpers.ts';

const rowsOf = (html: string) => [...html.matchAll(/<tr><td[ >]/g)].length;
const phonesOf = (html: string) =>
  [...html.matchAll(/<td data-label="Phone"><span class="nowrap">(0\d{9})<\/span><\/td>/g)].map((m) => m[1]).sort();
const csvPhones = (csv: string) =>
  csv
    .split('\r\n')
    .slice(1)
    .filter(Boolean)
    .map((l) => l.split(',')[1].replace(/^"\t(\d+)"$/, '$1'))
    .sort();

for (const target of await storeTargets()) {
  describe(`console message log (${target.name})`, () => {
    let t: TestService;
    let web: ConsoleClient;
    let spring: number;
    let autumn: number;

    before(async () => {
      t = await startTestService(target);
      const s = await newSender(t, 'dana', 1000);
      const phones = Array.from({ length: 60 }, (_, i) => `05212300${String(i).padStart(2, '0')}`);
      spring = (await s.sms({ destinations: { phone: phones }, message: 'Spring sale', timing: '01/01/40 10:00' }))
        .campaign_id;
      autumn = (
        await s.sms({ destinations: { phone: ['0529998877'] }, message: '=1+1 autumn', timing: '01/01/40 10:00' })
      ).campaign_id;
      const db = t.service.store.db;
      // Outcomes as the dispatcher and receipts leave them: 0-9 failed (101), 10-11 blocked, 12-19 pending, rest delivered.
      const ids = (
        await db.selectFrom('messages').select(['id', 'phone']).where('campaign_id', '=', spring).execute()
      ).map((r) => ({ id: Number(r.id), n: Number(r.phone.slice(-2)) }));
      for (const { id, n } of ids) {
        const set =
          n < 10
            ? { state: 'done' as const, status: 101 as const, error: 'simulated refusal' }
            : n < 12
              ? { state: 'skipped' as const, status: 201 as const }
              : n < 20
                ? { state: 'queued' as const }
                : { state: 'done' as const, status: 102 as const };
        await db.updateTable('messages').set(set).where('id', '=', id).execute();
      }
      web = new ConsoleClient(t.httpsUrl);
      assert.equal((await web.login('dana', 'secret-pw')).status, 303);
    });
    after(() => t?.close());

    it('lists every message newest first, 50 a page, the next page by keyset with no repeat', async () => {
      const first = await web.get('/console/messages');
      assert.equal(first.status, 200);
      assert.equal(rowsOf(first.text), 50);
      assert.ok(first.text.indexOf('0529998877') < first.text.indexOf('0521230059'), 'newest first');
      const next = /href="(\/console\/messages\?before=[^"]+)"/.exec(first.text)?.[1].replace(/&amp;/g, '&');
      assert.ok(next, 'a link to older messages');
      const second = await web.get(next);
      assert.equal(rowsOf(second.text), 11);
      const all = [...phonesOf(first.text), ...phonesOf(second.text)];
      assert.equal(new Set(all).size, 61);
    });

    it('filters by outcome, numeric status, part of the phone, campaign, channel and dates', async () => {
      const failed = phonesOf((await web.get('/console/messages?status=failed')).text);
      assert.deepEqual(
        failed,
        Array.from({ length: 10 }, (_, i) => `052123000${i}`),
      );
      assert.equal(rowsOf((await web.get('/console/messages?status=blocked')).text), 2);
      assert.equal(rowsOf((await web.get('/console/messages?status=pending')).text), 9);
      assert.equal(rowsOf((await web.get('/console/messages?status=delivered')).text), 40);
      assert.equal(rowsOf((await web.get('/console/messages?status=201')).text), 2);
      assert.deepEqual(phonesOf((await web.get('/console/messages?phone=998877')).text), ['0529998877']);
      assert.deepEqual(phonesOf((await web.get('/console/messages?phone=052-999-8877')).text), ['0529998877']);
      assert.equal(rowsOf((await web.get(`/console/messages?campaign=${autumn}`)).text), 1);
      assert.equal(rowsOf((await web.get(`/console/messages?campaign=${spring}&status=failed`)).text), 10);
      assert.equal(rowsOf((await web.get('/console/messages?channel=otp')).text), 0);
      const today = new Date().toISOString().slice(0, 10);
      assert.equal(rowsOf((await web.get(`/console/messages?from=2000-01-01&to=2000-01-02`)).text), 0);
      assert.equal(rowsOf((await web.get(`/console/messages?channel=sms&from=${today}&status=failed`)).text), 10);
    });

    it('names a filter it does not understand and ignores it; an export with one is refused', async () => {
      const page = await web.get('/console/messages?status=lost&from=2026-02-31');
      assert.equal(page.status, 200);
      assert.match(page.text, /not understood and are ignored: status, from/);
      const csv = await web.get('/console/messages.csv?status=lost');
      assert.equal(csv.status, 400);
      assert.match(csv.text, /status/);
    });

    it('exports the same rows as CSV: BOM, one header row, formulas defused', async () => {
      const csv = await web.get('/console/messages.csv?status=failed');
      assert.equal(csv.status, 200);
      assert.deepEqual([...csv.bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
      assert.ok(csv.text.startsWith('\uFEFFtime,phone,sender,'));
      assert.deepEqual(csvPhones(csv.text), phonesOf((await web.get('/console/messages?status=failed')).text));
      assert.match(csv.text, /simulated refusal/);
      const all = await web.get('/console/messages.csv');
      assert.equal(all.text.split('\r\n').filter(Boolean).length, 62);
      assert.match(all.text, /,'=1\+1 autumn,/);
    });

    it("exports only the signed-in account's messages", async () => {
      await newSender(t, 'omer', 10);
      const other = new ConsoleClient(t.httpsUrl);
      await other.login('omer', 'secret-pw');
      const csv = await other.get(`/console/messages.csv?campaign=${spring}`);
      assert.equal(csv.text.split('\r\n').filter(Boolean).length, 1);
      assert.equal(rowsOf((await other.get('/console/messages')).text), 0);
    });
  });
}
