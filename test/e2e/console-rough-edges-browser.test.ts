// The console's finer points in Chromium (playwright-core) against a real service: the send form counts
// characters, parts and alphabet while typing, exactly as the service counts them (domain/encoding.ts); the
// message log at 1280 px keeps status, carrier and error in view in English and in Hebrew, with long texts cut to
// a line that opens the message's page with the whole text; that page passes axe-core in both languages; the
// delivery chart's legend speaks plain words. Screenshots under test-results/console/.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { countParts } from '../../src/domain/encoding.ts';
import { assertAccessible, browserAvailable, launchBrowser, newPage, screenshot, signIn } from '../helpers/browser.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { newSender } from '../operations/send-helpers.ts';

const run = browserAvailable();
const [sqlite] = await storeTargets();
const WIDE = { width: 1280, height: 900 };
const LONG_EN = `Winter sale at every branch this weekend only: ${'two for one on coats, boots and scarves; '.repeat(4)}see you!`;
const LONG_HE = `מבצע חורף בכל הסניפים בסוף השבוע בלבד: ${'שניים במחיר אחד על מעילים, מגפיים וצעיפים; '.repeat(4)}נתראה!`;
const LONG_ERROR =
  'submit_sm refused by the carrier: ESME_RINVDSTADR (0x0000000B) invalid destination address for this route';

describe('console rough edges in a browser', { skip: !run && 'Chromium not installed' }, () => {
  let t: TestService;
  let browser: Browser;
  let page: Page;
  let messageId: number;

  before(async () => {
    t = await startTestService(sqlite);
    const s = await newSender(t, 'noa');
    const db = t.service.store.db;
    for (const [message, name] of [
      [LONG_EN, 'Winter sale for the whole family at every branch'],
      [LONG_HE, 'מבצע חורף לכל המשפחה בכל הסניפים'],
    ]) {
      const phones = Array.from({ length: 3 }, (_, i) => `052123${message === LONG_EN ? 1 : 2}00${i}`);
      const sent = await s.sms({ destinations: { phone: phones }, message, campaign_name: name });
      assert.equal(sent.status, 0, JSON.stringify(sent));
    }
    // Outcomes as the dispatcher and receipts leave them: refused with a long error, delivered, blocked.
    const ids = (await db.selectFrom('messages').select('id').orderBy('id').execute()).map((r) => Number(r.id));
    for (const [i, id] of ids.entries()) {
      const set =
        i % 3 === 0
          ? { state: 'failed' as const, status: 101 as const, error: LONG_ERROR, carrier: 'carrier-north-primary' }
          : i % 3 === 1
            ? { state: 'done' as const, status: 102 as const, carrier: 'carrier-south' }
            : { state: 'skipped' as const, status: 201 as const };
      await db
        .updateTable('messages')
        .set({ ...set, status_at: Date.now() + i * 2000 })
        .where('id', '=', id)
        .execute();
    }
    messageId = ids[0];
    browser = await launchBrowser();
    page = await newPage(browser, { viewport: WIDE });
    page.setDefaultTimeout(10_000);
    await signIn(page, t.httpsUrl, 'noa', 'secret-pw');
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const language = (lang: 'en' | 'he') =>
    page.context().addCookies([{ name: 'yona_lang', value: lang, url: t.httpsUrl }]);

  it('counts characters, parts and alphabet while typing, as the service counts them', async () => {
    await language('en');
    await page.goto(`${t.httpsUrl}/console/send`);
    const box = page.getByLabel('Message', { exact: true });
    const counter = page.locator('#send-counter');
    await box.pressSequentially('Hi');
    assert.equal(await counter.textContent(), '2 characters, 1 part, GSM-7 (Latin letters)');
    await box.pressSequentially(' שלום');
    assert.equal(await counter.textContent(), '7 characters, 1 part, UCS-2 (Unicode: Hebrew, emoji...)');
    const samples = [
      'a'.repeat(160),
      'a'.repeat(161),
      `${'a'.repeat(152)}€`,
      `${'a'.repeat(153)}{}`,
      'line one\nline two',
      'שלום '.repeat(14),
      `${'ש'.repeat(66)}😀`,
      `${'x'.repeat(68)}😀`,
      '',
    ];
    for (const text of samples) {
      await box.fill(text);
      // What a form submits: each line break as CR LF.
      const expected = countParts(text.replace(/\n/g, '\r\n'));
      const shown = await counter.evaluate((o: HTMLElement) => ({ ...o.dataset }));
      assert.deepEqual(
        [shown.units, shown.parts, shown.encoding],
        [String(expected.units), String(expected.parts), expected.encoding],
        JSON.stringify(text),
      );
    }
    await box.fill('a'.repeat(161));
    assert.equal(await counter.textContent(), '161 characters, 2 parts, GSM-7 (Latin letters)');
    await assertAccessible(page, 'send form with its counter');
    await language('he');
    await page.reload();
    await page.locator('#send-message').fill('שלום');
    assert.equal(await counter.textContent(), '4 תווים, חלק אחד, UCS-2 (יוניקוד: עברית, אימוג׳י...)');
    await language('en');
  });

  for (const lang of ['en', 'he'] as const) {
    it(`keeps status, carrier and error in view at 1280 px (${lang}), long texts cut with a way to read them whole`, async () => {
      await language(lang);
      await page.goto(`${t.httpsUrl}/console/messages`);
      await screenshot(page, `message-log-1280-${lang}`);
      const region = page.locator('.scroll').first();
      const scrolls = await region.evaluate((el) => el.scrollWidth > el.clientWidth + 1);
      assert.equal(scrolls, false, 'the table fits its region: nothing hidden to the side');
      const rows = region.locator('tbody tr');
      assert.equal(await rows.count(), 6);
      // Status, carrier and error are the last three columns.
      for (let r = 0; r < 6; r++) {
        const cells = rows.nth(r).locator('td');
        for (const column of [8, 9, 10]) {
          const cell = cells.nth(column);
          const box = await cell.boundingBox();
          assert.ok(box, `row ${r} column ${column} is shown`);
          assert.ok(
            box.x >= 0 && box.x + box.width <= WIDE.width,
            `row ${r} column ${column} within the viewport: ${JSON.stringify(box)}`,
          );
          const clipped = await cell.evaluate((td) => {
            const inner = td.firstElementChild as HTMLElement | null;
            // A cut error keeps its whole in the tooltip; anything else must not be cut.
            if (inner?.classList.contains('clip')) return inner.title === '';
            return td.scrollWidth > td.clientWidth + 1;
          });
          assert.equal(clipped, false, `row ${r} column ${column} not clipped`);
        }
      }
      const status = await rows.nth(5).locator('td').nth(8).innerText();
      assert.match(status, lang === 'en' ? /Failed: 101/ : /נכשלה?: 101|101/);
      assert.equal((await rows.nth(5).locator('td').nth(9).innerText()).trim(), 'carrier-north-primary');
      // The long text: one line cut short, its whole in the tooltip, opening the message's page.
      const text = rows.nth(5).locator('td').nth(5).locator('a.clip');
      const cut = await text.evaluate((a) => ({ cut: a.scrollWidth > a.clientWidth, title: a.getAttribute('title') }));
      assert.equal(cut.cut, true, 'the long text is cut');
      assert.equal(cut.title, LONG_EN);
      await text.click();
      await page.waitForURL(`**/console/messages/${messageId}`);
      const whole = page.locator('blockquote.message-text');
      assert.equal(await whole.innerText(), LONG_EN);
      const box = await whole.boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= WIDE.width, 'the whole text is in view');
      await assertAccessible(page, `message page (${lang})`);
      await screenshot(page, `message-page-${lang}`);
    });
  }

  it('names the delivery chart lines in plain words', async () => {
    await language('en');
    await page.goto(`${t.httpsUrl}/console/campaigns`);
    await page.getByRole('link', { name: /^\d+$/ }).first().click();
    await page.locator('#chart canvas').first().waitFor();
    const legend = await page.locator('.u-legend .u-label').allInnerTexts();
    assert.deepEqual(legend, ['Time (Asia/Jerusalem)', 'Delivered (total so far)', 'Failed (total so far)']);
    await screenshot(page, 'campaign-chart-labels');
  });
});
