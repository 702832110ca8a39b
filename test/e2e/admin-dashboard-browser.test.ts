// The operator's overview and margins in Chromium on both stores, against seeded traffic: /admin draws the last
// 24 hours' chart with its four lines named, /admin/margins the 12 months' chart with charged, carrier cost and
// margin; both pass axe in English and Hebrew (RTL), and the margins tables are cards on a phone-sized screen.
// Screenshots under test-results/console/ (docs/operator-console.md shows them).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { DELIVERY } from '../../src/domain/status.ts';
import { totpCode } from '../../src/domain/totp.ts';
import { assertAccessible, browserAvailable, launchBrowser, newPage, screenshot } from '../helpers/browser.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { seedInbound, seedMessages } from '../http/admin/seed-traffic.ts';

const HOUR = 3600_000;

for (const target of browserAvailable() ? await storeTargets() : []) {
  describe(`operator overview and margins in a browser (${target.name})`, () => {
    let t: TestService;
    let browser: Browser;
    let page: Page;
    const now = Date.UTC(2026, 10, 27, 11, 0, 30);
    const shots = target.name === 'sqlite';

    before(async () => {
      t = await startTestService(target, { clock: () => now });
      await t.admin('create-operator', 'dana', '--password', 'dana-pw-123');
      await t.admin('create-account', 'acme', '--password', 'acme-password-1');
      await t.admin('create-account', 'resl', '--password', 'resl-password-1', '--reseller');
      await t.admin('create-account', 'resl-sub', '--password', 'sub-password-1', '--parent', 'resl');
      for (let h = 1; h <= 20; h += 3) {
        const at = now - h * HOUR;
        const taken = { createdAt: at, submittedAt: at + 1000, statusAt: at + 5000, carrier: 'alpha' };
        await seedMessages(t, 20 + h, {
          account: 'acme',
          ...taken,
          status: DELIVERY.DELIVERED,
          credits: 1,
          carrierCost: 2500,
        });
        await seedMessages(t, 2, {
          account: 'resl-sub',
          ...taken,
          status: DELIVERY.NOT_DELIVERED,
          credits: 1,
          carrierCost: 2500,
        });
        await seedInbound(t, 'acme', 3, at + 60_000);
      }
      for (let m = 1; m <= 5; m++) {
        const at = Date.UTC(2026, 10 - m, 12, 10, 0, 0);
        const taken = {
          createdAt: at,
          submittedAt: at,
          statusAt: at + 5000,
          carrier: 'beta',
          status: DELIVERY.DELIVERED,
        };
        await seedMessages(t, 30 * m, { account: 'acme', ...taken, credits: 1, carrierCost: 1800 });
        await seedMessages(t, 10, { account: 'resl-sub', ...taken, channel: 'whatsapp', agorot: 15, carrierCost: 900 });
      }
      browser = await launchBrowser();
      page = await newPage(browser);
      page.setDefaultTimeout(10_000);
      await page.goto(`${t.httpsUrl}/admin/login`);
      await page.getByLabel('Operator name').fill('dana');
      await page.getByLabel('Password').fill('dana-pw-123');
      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in' }).click()]);
      const secret = (await page.locator('#totp-secret').innerText()).replace(/\s/g, '');
      await page.getByLabel('The code your app shows now').fill(totpCode(secret, now));
      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Verify' }).click()]);
      assert.equal(new URL(page.url()).pathname, '/admin');
    });
    after(async () => {
      await browser?.close();
      await t?.close();
    });

    it('draws the last 24 hours on /admin, its lines named, axe clean in English and Hebrew', async () => {
      for (const lang of ['en', 'he'] as const) {
        await page.goto(`${t.httpsUrl}/admin/lang/${lang}?back=/admin`);
        await page.locator('#traffic-chart canvas').first().waitFor();
        const legend = await page.locator('#traffic-chart .u-legend .u-label').allInnerTexts();
        assert.deepEqual(
          legend.slice(1),
          lang === 'en'
            ? ['Accepted', 'Submitted to carriers', 'Final receipts', 'Inbound']
            : ['התקבלו', 'נשלחו לספקים', 'אישורי מסירה סופיים', 'נכנסות'],
        );
        assert.equal(await page.locator('html').getAttribute('dir'), lang === 'he' ? 'rtl' : 'ltr');
        await page
          .getByRole('img', { name: lang === 'en' ? /^Chart of the last 24 hours/ : /^תרשים 24 השעות/ })
          .waitFor();
        await assertAccessible(page, `/admin (${lang})`);
        if (shots) await screenshot(page, lang === 'en' ? 'admin-overview' : 'admin-overview-he');
      }
    });

    it('draws the 12 months on /admin/margins with the month, per channel and per account, axe clean', async () => {
      for (const lang of ['en', 'he'] as const) {
        await page.goto(`${t.httpsUrl}/admin/lang/${lang}?back=/admin/margins`);
        await page.goto(`${t.httpsUrl}/admin/margins?month=2026-11&credit-price=8`);
        await page.locator('#margins-chart canvas').first().waitFor();
        const legend = await page.locator('#margins-chart .u-legend .u-label').allInnerTexts();
        assert.deepEqual(
          legend.slice(1),
          lang === 'en'
            ? ['Charged (₪)', 'Carrier cost (₪)', 'Margin (₪)']
            : ['חיוב (₪)', 'עלות ספקים (₪)', 'רווח (₪)'],
        );
        // Pointing at the chart names the month under the cursor, as mm/yyyy.
        const over = page.locator('#margins-chart .u-over');
        const box = (await over.boundingBox())!;
        await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2);
        const time = await page.locator('#margins-chart .u-legend .u-value').first().innerText();
        assert.equal(time, '11/2026');
        assert.ok((await page.locator('tbody tr').count()) >= 5);
        await assertAccessible(page, `/admin/margins (${lang})`);
        if (shots) await screenshot(page, lang === 'en' ? 'admin-margins' : 'admin-margins-he');
      }
      const phone = await newPage(browser, { viewport: { width: 390, height: 800 } });
      await phone.context().addCookies(await page.context().cookies());
      await phone.goto(`${t.httpsUrl}/admin/margins?month=2026-11&credit-price=8`);
      await phone.locator('#margins-chart canvas').first().waitFor();
      const display = await phone
        .locator('tbody tr')
        .first()
        .evaluate((el) => getComputedStyle(el).display);
      assert.notEqual(display, 'table-row', 'rows are cards on a phone');
      await assertAccessible(phone, '/admin/margins on a phone');
      if (shots) await screenshot(phone, 'admin-margins-phone');
    });
  });
}
