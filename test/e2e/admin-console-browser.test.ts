// The operator console in Chromium on both stores: an operator enrols an authenticator at the first sign-in and
// signs in with its code, creates an account and credits it (the ledger names the operator), finds both changes in
// the audit log, and every page passes axe in English and Hebrew (RTL), its tables cards on a phone-sized screen.
// Screenshots under test-results/console/ (docs/operator-console.md shows them).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { totpCode } from '../../src/domain/totp.ts';
import { assertAccessible, browserAvailable, launchBrowser, newPage, screenshot } from '../helpers/browser.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';

const PAGES = [
  '/admin',
  '/admin/accounts',
  '/admin/accounts/acme',
  '/admin/carriers',
  '/admin/routes',
  '/admin/messages',
  '/admin/margins',
  '/admin/audit',
];

for (const target of browserAvailable() ? await storeTargets() : []) {
  describe(`operator console in a browser (${target.name})`, () => {
    let t: TestService;
    let browser: Browser;
    let page: Page;
    const now = Date.UTC(2026, 10, 27, 9, 0, 0);
    const shots = target.name === 'sqlite';
    before(async () => {
      t = await startTestService(target, { clock: () => now });
      await t.admin('create-operator', 'dana', '--password', 'dana-pw-123');
      browser = await launchBrowser();
      page = await newPage(browser);
      page.setDefaultTimeout(10_000);
    });
    after(async () => {
      await browser?.close();
      await t?.close();
    });

    const submit = (name: string) =>
      Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.getByRole('button', { name }).click()]);

    it('enrols an authenticator at the first sign-in, then signs in with its code', async () => {
      await page.goto(`${t.httpsUrl}/admin`);
      assert.match(page.url(), /\/admin\/login/);
      await assertAccessible(page, 'admin login');
      await page.getByLabel('Operator name').fill('dana');
      await page.getByLabel('Password').fill('dana-pw-123');
      await submit('Sign in');
      const secret = (await page.locator('#totp-secret').innerText()).replace(/\s/g, '');
      assert.match(await page.locator('#totp-uri').innerText(), /^otpauth:\/\/totp\//);
      await assertAccessible(page, 'admin enrolment');
      if (shots) await screenshot(page, 'admin-enrol');
      await page.getByLabel('The code your app shows now').fill(totpCode(secret, now));
      await submit('Verify');
      assert.equal(new URL(page.url()).pathname, '/admin');
      assert.match(await page.locator('main').innerText(), /Signed in as dana, admin/);
    });

    it('creates an account and credits it; the ledger and the audit log name the operator', async () => {
      await page.goto(`${t.httpsUrl}/admin/accounts`);
      await page.locator('#new-username').fill('acme');
      await page.locator('#new-name').fill('Acme Ltd');
      await page.locator('#new-password').fill('acme-pw-123');
      await page.locator('#new-credits').fill('100');
      await submit('Create');
      assert.equal(new URL(page.url()).pathname, '/admin/accounts/acme');
      await page.getByLabel('Credits (negative to debit)').fill('50');
      await page.locator('#credit-reason').fill('invoice 1001');
      await submit('Apply');
      const main = await page.locator('main').innerText();
      assert.match(main, /150/);
      assert.match(main, /operator dana: invoice 1001/);
      if (shots) await screenshot(page, 'admin-account');
      await page.goto(`${t.httpsUrl}/admin/audit`);
      const audit = await page.locator('main').innerText();
      assert.match(audit, /creditAccount/);
      assert.match(audit, /createAccount/);
      assert.match(audit, /credits: 100[\s\S]*credits: 150/);
      if (shots) await screenshot(page, 'admin-audit');
    });

    it('passes axe on every page in English and Hebrew, and shows tables as cards on a phone', async () => {
      for (const lang of ['en', 'he']) {
        await page.goto(`${t.httpsUrl}/admin/lang/${lang}?back=/admin`);
        assert.equal(await page.locator('html').getAttribute('dir'), lang === 'he' ? 'rtl' : 'ltr');
        for (const path of PAGES) {
          await page.goto(`${t.httpsUrl}${path}`);
          await assertAccessible(page, `${path} (${lang})`);
        }
      }
      if (shots) await screenshot(page, 'admin-audit-he');
      const phone = await newPage(browser, { viewport: { width: 390, height: 800 } });
      await phone.context().addCookies(await page.context().cookies());
      await phone.goto(`${t.httpsUrl}/admin/accounts`);
      const display = await phone
        .locator('tbody tr')
        .first()
        .evaluate((el) => getComputedStyle(el).display);
      assert.notEqual(display, 'table-row', 'rows are cards on a phone');
      if (shots) await screenshot(phone, 'admin-accounts-phone');
    });
  });
}
