// The console in Chromium (playwright-core) against a real service over HTTPS: each main page is used as a
// customer would, checked with axe-core (no serious or critical violation) and saved as a screenshot under
// test-results/console/. Skipped with a notice when Chromium is absent (REQUIRE_BROWSER=1: a failure).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { assertAccessible, browserAvailable, launchBrowser, newPage, screenshot, signIn } from '../helpers/browser.ts';
import { carriersComponent } from '../../src/delivery/carriers.ts';
import { createPusher } from '../../src/delivery/pusher.ts';
import { newSender } from '../operations/send-helpers.ts';
import { startPushReceiver, waitFor, type PushReceiver } from '../helpers/push-receiver.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { loadConfig } from '../../src/config.ts';

const run = browserAvailable();
const PUSH_ENV = { YONA_PUSH_ALLOW_PRIVATE: '1', YONA_PUSH_RETRY_BASE_MS: '20', YONA_PUSH_POLL_MS: '20' };
const [sqlite] = await storeTargets();

describe('console in a browser', { skip: !run && 'Chromium not installed' }, () => {
  let t: TestService;
  let browser: Browser;
  let page: Page;
  let receiver: PushReceiver;
  before(async () => {
    receiver = await startPushReceiver();
    t = await startTestService(sqlite, {
      env: PUSH_ENV,
      components: [
        createPusher({ config: loadConfig(PUSH_ENV) }),
        carriersComponent({ config: loadConfig({}), settings: { pollMs: 20, simulatorReceiptDelayMs: 20 } }),
      ],
    });
    await t.admin('create-account', 'carol', '--password', 'carol-pw-1', '--credits', '500');
    browser = await launchBrowser();
    page = await newPage(browser);
    page.setDefaultTimeout(10_000);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await receiver?.close();
  });

  it('refuses a wrong password, then signs in', async () => {
    await signIn(page, t.httpsUrl, 'carol', 'wrong password');
    await page.getByText('Wrong username or password.').waitFor();
    await assertAccessible(page, 'login');
    await screenshot(page, 'login-refused');
    await signIn(page, t.httpsUrl, 'carol', 'carol-pw-1');
    assert.equal(new URL(page.url()).pathname, '/console');
    await page.getByText('SMS credits').waitFor();
    await assertAccessible(page, 'overview');
    await screenshot(page, 'overview');
  });

  it('creates a token shown once, which answers a real balance call over HTTPS until deleted (then 3)', async () => {
    await page.goto(`${t.httpsUrl}/console/tokens`);
    await page.getByRole('button', { name: 'Create a token' }).click();
    const token = await page.getByRole('textbox', { name: /^API / }).inputValue();
    assert.match(token, /^yona_/);
    await assertAccessible(page, 'tokens (created)');
    await screenshot(page, 'tokens-created');
    const balance = () => t.api('balance', { user: { username: 'carol' } }, { token, https: true });
    assert.deepEqual([(await balance()).status, (await balance()).balance], [0, '500']);
    await page.goto(`${t.httpsUrl}/console/tokens`);
    assert.equal(await page.getByRole('textbox', { name: /^API / }).count(), 0, 'the value is shown once only');
    await page.getByText(`yona_********${token.slice(-4)}`).waitFor();
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('The token was deleted; it no longer works.').waitFor();
    assert.equal((await balance()).status, 3);
  });

  it('warns before turning the IP check on with no address; adds one and the API answers from it only', async () => {
    const { token } = await t.account('erin');
    await signIn(page, t.httpsUrl, 'erin', 'secret-pw');
    await page.goto(`${t.httpsUrl}/console/ips`);
    await page.getByRole('button', { name: 'Turn the IP check on' }).click();
    await page.getByText('There is no address on the list.', { exact: false }).waitFor();
    await screenshot(page, 'ips-warning');
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.getByLabel(/Address or CIDR range/).fill('not an address');
    await page.getByRole('button', { name: 'Add' }).click();
    await page.getByText('"not an address" is not an IP address or CIDR range.').waitFor();
    await page.getByLabel(/Address or CIDR range/).fill('10.9.0.0/16');
    await page.getByRole('button', { name: 'Add' }).click();
    await page.getByText('The address was added.').waitFor();
    await page.getByRole('button', { name: 'Turn the IP check on' }).click();
    await page.getByText('The IP check is on: the API', { exact: false }).waitFor();
    assert.equal((await t.api('balance', { user: { username: 'erin' } }, { token })).status, 511);
    await page.getByLabel(/Address or CIDR range/).fill('127.0.0.1');
    await page.getByRole('button', { name: 'Add' }).click();
    await page.getByRole('cell', { name: '127.0.0.1/32' }).waitFor();
    assert.equal((await t.api('balance', { user: { username: 'erin' } }, { token })).status, 0);
    await assertAccessible(page, 'ips');
    await screenshot(page, 'ips');
  });

  it('registers a push URL, disables it (events wait) and enables it again (they arrive, logged with 200)', async () => {
    const { token } = await t.account('fay');
    await signIn(page, t.httpsUrl, 'fay', 'secret-pw');
    await page.goto(`${t.httpsUrl}/console/push`);
    await page.getByLabel('URL for blacklist events').fill(receiver.url);
    await page.locator('#push-blacklist').locator('xpath=..').getByRole('button', { name: 'Register' }).click();
    await page.getByText('The URL was registered.').waitFor();
    const blacklist = page.locator('section', { has: page.locator('#push-blacklist') });
    await blacklist.getByRole('button', { name: 'Disable' }).click();
    await page.getByText('The URL is disabled; events are kept.').waitFor();
    await blacklist.getByText('disabled in the console', { exact: false }).waitFor();
    assert.equal(
      (await t.api('addNumBL', { user: { username: 'fay' }, phones: ['0521234567'] }, { token })).status,
      946,
    );
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(receiver.received.length, 0, 'nothing is pushed while disabled');
    await blacklist.getByRole('button', { name: 'Enable again' }).click();
    await page.getByText('The URL is enabled; kept events are delivered now.').waitFor();
    await waitFor(() => receiver.received.length === 1, 'the kept blacklist push');
    await page.reload();
    await blacklist.getByRole('cell', { name: '200', exact: true }).waitFor();
    await assertAccessible(page, 'push');
    await screenshot(page, 'push');
  });

  it('shows a campaign sent through the bundled simulator: counts, chart, messages found by phone or external id', async () => {
    const s = await newSender(t, 'gil');
    // 052123110x delivered; 0521230101 refused by the simulator (status 101: not delivered).
    const phones = [...Array.from({ length: 29 }, (_, i) => `05212311${String(i).padStart(2, '0')}`), '0521230101'];
    const sent = await s.sms({
      destinations: { phone: phones.map((p, i) => ({ $: { id: `order-${i}` }, _: p })) },
      message: 'Sale today',
      campaign_name: 'Spring',
    });
    assert.equal(sent.status, 0, JSON.stringify(sent));
    await waitFor(async () => {
      const rows = await t.service.store.db
        .selectFrom('messages')
        .select('id')
        .where('campaign_id', '=', sent.campaign_id)
        .where('state', 'in', ['done', 'failed'])
        .execute();
      return rows.length === phones.length;
    }, 'receipts for every message');
    await signIn(page, t.httpsUrl, 'gil', 'secret-pw');
    await page.goto(`${t.httpsUrl}/console/campaigns`);
    const row = page.getByRole('row', { name: new RegExp(`^${sent.campaign_id} Spring`) });
    assert.match(await row.innerText(), /Sent.*\s30\s+29\s+1\s+0$/s);
    await assertAccessible(page, 'campaigns');
    await screenshot(page, 'campaigns');
    await row.getByRole('link').click();
    await page.locator('#chart canvas').first().waitFor();
    await page.getByRole('img', { name: 'Chart of deliveries over time: 29 delivered, 1 failed in all.' }).waitFor();
    // The chart's time axis is drawn in the account's zone (as the table), not the browser's.
    const chartData = JSON.parse((await page.locator('#chart-data').textContent()) ?? '{}');
    assert.equal(chartData.timeZone, 'Asia/Jerusalem');
    await assertAccessible(page, 'campaign');
    await screenshot(page, 'campaign');
    await page.getByLabel('Phone (any part)').fill('052-1231117');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('cell', { name: '0521231117' }).waitFor();
    assert.equal(await page.getByRole('region', { name: 'Messages' }).locator('tbody tr').count(), 1);
  });

  it('cancels a scheduled campaign and refunds it', async () => {
    const s = await newSender(t, 'hila', 100);
    const sent = await s.sms({
      destinations: { phone: ['0521112233', '0521112234'] },
      message: 'Later',
      timing: '01/01/40 10:00',
    });
    assert.equal(sent.status, 0, JSON.stringify(sent));
    assert.equal((await s.balance()).credits, 98);
    await signIn(page, t.httpsUrl, 'hila', 'secret-pw');
    await page.goto(`${t.httpsUrl}/console/campaigns/${sent.campaign_id}`);
    await page.getByText('Scheduled for', { exact: false }).waitFor();
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Cancel this campaign' }).click();
    await page.getByText('The campaign was cancelled and its credits refunded.').waitFor();
    assert.equal((await s.balance()).credits, 100);
    await screenshot(page, 'campaign-cancelled');
  });

  it('uploads a CSV file as a new list, with each rejected row named by its line', async () => {
    await signIn(page, t.httpsUrl, 'carol', 'carol-pw-1');
    await page.goto(`${t.httpsUrl}/console/lists`);
    await page.getByLabel('Name', { exact: true }).fill('Customers');
    const csv =
      'phone,name,birthday\n0521234567,Dana,01/02/1990\n12,Short,\n"0521234568","Cohen, Avi",\n0521234567,Again,\n';
    await page
      .getByLabel('CSV file')
      .setInputFiles({ name: 'customers.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.waitForFunction(() =>
      (document.getElementById('new-csv') as HTMLTextAreaElement).value.includes('Cohen'),
    );
    await page.getByRole('button', { name: 'Create the list' }).click();
    await page.getByText('2 contacts added; 2 rows rejected.').waitFor();
    await page.getByText('Line 3 (12): the number is too short').waitFor();
    await page.getByText('Line 5 (0521234567): already in the list').waitFor();
    await page.getByRole('cell', { name: 'Cohen, Avi' }).waitFor();
    await assertAccessible(page, 'list');
    await screenshot(page, 'list-uploaded');
    await page.goto(`${t.httpsUrl}/console/lists`);
    await page.getByRole('link', { name: 'Customers' }).waitFor();
    await assertAccessible(page, 'lists');
  });

  it('balance, senders, blocklist, birthdays and sub-accounts pages pass axe and work from the keyboard', async () => {
    await t.admin('create-account', 'ivy', '--password', 'ivy-pw-123', '--credits', '300', '--reseller');
    await t.admin('verify-sender', 'ivy', 'IvyShop');
    await signIn(page, t.httpsUrl, 'ivy', 'ivy-pw-123');
    for (const [path, name] of [
      ['/console/balance', 'balance'],
      ['/console/senders', 'senders'],
    ]) {
      await page.goto(`${t.httpsUrl}${path}`);
      await assertAccessible(page, name);
      await screenshot(page, name);
    }
    await page.goto(`${t.httpsUrl}/console/blocklist`);
    await page.getByLabel(/Phone numbers/).fill('0521231234, not-a-phone');
    await page.getByRole('button', { name: 'Block', exact: true }).click();
    await page.getByText('Not phone numbers: not-a-phone. Nothing was blocked.').waitFor();
    await page.getByLabel(/Phone numbers/).fill('0521231234');
    await page.getByLabel(/Phone numbers/).press('Tab');
    await page.keyboard.press('Enter');
    await page.getByText('1 numbers blocked; 0 were already blocked.').waitFor();
    await page.getByRole('cell', { name: '0521231234' }).waitFor();
    await assertAccessible(page, 'blocklist');
    await screenshot(page, 'blocklist');
    await page.goto(`${t.httpsUrl}/console/lists`);
    await page.getByLabel('Name', { exact: true }).fill('Birthdays');
    await page.getByLabel('Contacts (CSV)').fill('0521231235,Noa,05/06/1990');
    await page.getByRole('button', { name: 'Create the list' }).click();
    await page.getByText('1 contacts added; 0 rows rejected.').waitFor();
    await page.goto(`${t.httpsUrl}/console/birthdays`);
    await page.getByLabel('Name', { exact: true }).fill('Greetings');
    await page.getByLabel('Message').fill('Happy birthday [df1]!');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByText('The birthday campaign was created.').waitFor();
    await assertAccessible(page, 'birthdays');
    await screenshot(page, 'birthdays');
    await page.goto(`${t.httpsUrl}/console/subaccounts`);
    await page.getByLabel('Name', { exact: true }).fill('Ivy Branch');
    await page.getByLabel('Username').fill('ivy-branch');
    await page.getByLabel('Password').fill('branch-pw-1');
    await page.getByLabel('Sender').fill('IvyBranch');
    await page.getByLabel('Opening credits').fill('40');
    await page.getByRole('button', { name: 'Create the sub-account' }).click();
    await page.getByText('Sub-account ivy-branch created with 40 credits').waitFor();
    await page.getByLabel('SMS credits').fill('10');
    await page.getByRole('button', { name: 'Transfer' }).click();
    await page.getByText('ivy-branch now has 50 credits').waitFor();
    await assertAccessible(page, 'subaccounts');
    await screenshot(page, 'subaccounts');
  });

  it('switches to Hebrew (right to left) and fits a phone-sized screen', async () => {
    const phone = await newPage(browser, { viewport: { width: 375, height: 740 } });
    phone.setDefaultTimeout(10_000);
    await signIn(phone, t.httpsUrl, 'gil', 'secret-pw');
    await phone.goto(`${t.httpsUrl}/console/campaigns`);
    await phone.getByRole('link', { name: 'עברית' }).click();
    await phone.waitForURL(/\/console\/campaigns$/);
    assert.equal(await phone.locator('html').getAttribute('dir'), 'rtl');
    assert.equal(await phone.locator('html').getAttribute('lang'), 'he');
    await phone.getByRole('heading', { name: 'קמפיינים' }).waitFor();
    const overflow = await phone.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    assert.ok(overflow <= 0, `the page is ${overflow}px wider than the screen`);
    await assertAccessible(phone, 'campaigns (Hebrew, phone)');
    await screenshot(phone, 'campaigns-he-phone');
    await phone.getByRole('link', { name: /^1$/ }).click();
    await phone.locator('#chart canvas').first().waitFor();
    await assertAccessible(phone, 'campaign (Hebrew, phone)');
    await screenshot(phone, 'campaign-he-phone');
    await phone.getByRole('link', { name: 'English' }).click();
    await phone.waitForURL(/\/console\/campaigns\/1$/);
    assert.equal(await phone.locator('html').getAttribute('dir'), 'ltr');
    await phone.context().close();
  });
});
