// /admin/alerts in Chromium on every store: the operator enrols, sets the carrier-down threshold and the webhook
// from the page; a message left in the due queue past the queue-age threshold shows among the active alerts on
// /admin/alerts and /admin; axe finds nothing serious on either page in English and Hebrew.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { alertsComponent } from '../../src/delivery/alerts.ts';
import { totpCode } from '../../src/domain/totp.ts';
import { assertAccessible, browserAvailable, launchBrowser, newPage, screenshot } from '../helpers/browser.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { newSender, type Sender } from '../operations/send-helpers.ts';

const run = browserAvailable();

async function submit(page: Page, button: string, form?: string): Promise<void> {
  const target = form ? page.locator(`${form} button`) : page.getByRole('button', { name: button });
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), target.click()]);
}

for (const target of await storeTargets()) {
  describe(`operator alerts in a browser (${target.name})`, { skip: !run && 'Chromium not installed' }, () => {
    let t: TestService;
    let browser: Browser;
    let ana: Sender;

    before(async () => {
      // No carrier runs: a message sent waits in the due queue.
      t = await startTestService(target, {
        env: { YONA_ALERT_INTERVAL_MS: '100', YONA_ALERT_MINUTE_MS: '100' },
        components: [alertsComponent()],
      });
      await t.admin('create-operator', 'dana', '--password', 'dana-pw-123');
      ana = await newSender(t, 'ana', 100);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await t?.close();
    });

    it('thresholds set from the page; an active alert on /admin/alerts and /admin; axe in both languages', async () => {
      const operator = await newPage(browser);
      await operator.goto(`${t.httpsUrl}/admin/login`);
      await operator.getByLabel('Operator name').fill('dana');
      await operator.getByLabel('Password').fill('dana-pw-123');
      await submit(operator, 'Sign in');
      const secret = (await operator.locator('#totp-secret').innerText()).replace(/\s/g, '');
      await operator.getByLabel('The code your app shows now').fill(totpCode(secret, Date.now()));
      await submit(operator, 'Verify');

      await operator.goto(`${t.httpsUrl}/admin/alerts`);
      await operator.locator('#alert-carrier-down-minutes').fill('5');
      await submit(operator, '', 'form[action="/admin/alerts/set"]:has(input[name="kind"][value="carrier-down"])');
      await operator.getByText('down for 5 min').first().waitFor();
      await operator.getByLabel('URL (empty: no webhook)').fill('https://ops.example.com/yona-alerts');
      await operator.getByLabel(/Signing secret/).fill('a-long-signing-secret');
      await submit(operator, '', 'form[action="/admin/alerts/webhook"]');
      await operator.getByText('posted, signed, to https://ops.example.com/yona-alerts').waitFor();

      assert.equal((await ana.sms({ destinations: { phone: '0501234567' } })).status, 0);
      await operator.locator('#alert-queue-age-minutes').fill('2');
      await submit(operator, '', 'form[action="/admin/alerts/set"]:has(input[name="kind"][value="queue-age"])');
      const deadline = Date.now() + 10_000;
      for (;;) {
        await operator.reload();
        if ((await operator.getByRole('cell', { name: 'Oldest queued message' }).count()) > 0) break;
        if (Date.now() > deadline) throw new Error('no active alert shown');
        await new Promise((r) => setTimeout(r, 200));
      }
      await assertAccessible(operator, '/admin/alerts (en)');
      await screenshot(operator, 'admin-alerts');
      await operator.goto(`${t.httpsUrl}/admin`);
      await operator.getByRole('cell', { name: 'Oldest queued message' }).first().waitFor();
      await assertAccessible(operator, '/admin with an alert (en)');

      await operator.goto(`${t.httpsUrl}/admin/lang/he?back=%2Fadmin%2Falerts`);
      await operator.getByRole('heading', { name: 'התראות פעילות' }).waitFor();
      assert.equal(await operator.locator('html').getAttribute('dir'), 'rtl');
      await assertAccessible(operator, '/admin/alerts (he)');
      await screenshot(operator, 'admin-alerts-he');
      await operator.goto(`${t.httpsUrl}/admin`);
      await assertAccessible(operator, '/admin with an alert (he)');
    });
  });
}
