// Sender names and prices in Chromium on every store: a customer asks for a sender name on /console/senders (a
// reserved one is refused with the reason), the operator signs in at /admin (enrolling TOTP), approves it on
// /admin/senders and the customer sends from it; /admin/prices sets a country's price; axe finds nothing serious
// on any of these pages in English or Hebrew. Screenshots go to test-results/console/.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { totpCode } from '../../src/domain/totp.ts';
import { assertAccessible, browserAvailable, launchBrowser, newPage, screenshot, signIn } from '../helpers/browser.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { newSender, type Sender } from '../operations/send-helpers.ts';

const run = browserAvailable();

async function submit(page: Page, button: string): Promise<void> {
  await Promise.all([
    page.waitForNavigation({ waitUntil: 'load' }),
    page.getByRole('button', { name: button }).click(),
  ]);
}

for (const target of await storeTargets()) {
  describe(`sender names and prices in a browser (${target.name})`, { skip: !run && 'Chromium not installed' }, () => {
    let t: TestService;
    let browser: Browser;
    let ana: Sender;

    before(async () => {
      t = await startTestService(target);
      await t.admin('create-operator', 'dana', '--password', 'dana-pw-123');
      ana = await newSender(t, 'ana', 100, ['--international', '10']);
      await t.admin('set-password', 'ana', '--password', 'ana-console-pw');
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await t?.close();
    });

    it('a customer asks, the operator approves, the customer sends; every page passes axe in both languages', async () => {
      const customer = await newPage(browser);
      await signIn(customer, t.httpsUrl, 'ana', 'ana-console-pw');
      await customer.goto(`${t.httpsUrl}/console/senders`);
      await customer.getByLabel('Sender name', { exact: true }).fill('BankYahav');
      await customer.getByLabel('Why you need it').fill('our bank');
      await submit(customer, 'Send the request');
      await customer.getByText('The sender name “BankYahav” is reserved').waitFor();
      await customer.getByLabel('Sender name', { exact: true }).fill('AnaShop');
      await customer.getByLabel('Why you need it').fill('receipts for our shop');
      await submit(customer, 'Send the request');
      await customer.getByText('Your request was sent to the operator.').waitFor();
      await customer.getByRole('cell', { name: 'Waiting for approval' }).waitFor();
      await assertAccessible(customer, '/console/senders (en)');
      await screenshot(customer, 'console-senders-request');

      const operator = await newPage(browser);
      await operator.goto(`${t.httpsUrl}/admin/login`);
      await operator.getByLabel('Operator name').fill('dana');
      await operator.getByLabel('Password').fill('dana-pw-123');
      await submit(operator, 'Sign in');
      const secret = (await operator.locator('#totp-secret').innerText()).replace(/\s/g, '');
      await operator.getByLabel('The code your app shows now').fill(totpCode(secret, Date.now()));
      await submit(operator, 'Verify');
      await operator.goto(`${t.httpsUrl}/admin/senders`);
      await operator.getByRole('cell', { name: 'receipts for our shop' }).waitFor();
      await assertAccessible(operator, '/admin/senders (en)');
      await screenshot(operator, 'admin-senders');
      await submit(operator, 'Approve');
      await operator.getByText('Approved: the name is a verified sender of the account.').waitFor();

      await customer.reload();
      await customer.getByRole('cell', { name: 'Approved', exact: true }).waitFor();
      assert.equal((await ana.sms({ source: 'AnaShop', destinations: { phone: '0501234567' } })).status, 0);

      await operator.goto(`${t.httpsUrl}/admin/prices`);
      await operator.getByLabel('Country', { exact: true }).fill('US');
      await operator.getByLabel('Agorot a part').fill('18');
      await operator.locator('form[action="/admin/prices/country"] button').click();
      await operator.getByRole('cell', { name: '18', exact: true }).waitFor();
      await assertAccessible(operator, '/admin/prices (en)');
      await screenshot(operator, 'admin-prices');
      const dry = await ana.sms(
        { destinations: { phone: ['+14155550123'] }, includes_international: '1' },
        { dryRun: true },
      );
      assert.equal(dry.international_cost, '0.18');

      await customer.goto(`${t.httpsUrl}/console/lang/he?back=%2Fconsole%2Fsenders`);
      await customer.getByRole('cell', { name: 'אושר', exact: true }).waitFor();
      assert.equal(await customer.locator('html').getAttribute('dir'), 'rtl');
      await assertAccessible(customer, '/console/senders (he)');
      await operator.goto(`${t.httpsUrl}/admin/lang/he?back=%2Fadmin%2Fsenders`);
      await operator.getByRole('heading', { name: 'שמות שמורים' }).waitFor();
      await assertAccessible(operator, '/admin/senders (he)');
      await operator.goto(`${t.httpsUrl}/admin/prices`);
      await assertAccessible(operator, '/admin/prices (he)');
      await screenshot(operator, 'admin-prices-he');
    });
  });
}
