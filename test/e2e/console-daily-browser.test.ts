// The console as a daily tool, in Chromium (playwright-core) against a real service sending through the bundled
// SMSC simulator: the message log finds exactly a campaign's scripted failures and its CSV export has the same
// rows; the campaign page shows the text, rate, reasons and the same filters; a reply sent with `yona sim mo`
// appears on the replies page, with the removal it caused. axe-core on each page in English and Hebrew;
// screenshots under test-results/console/.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { runSim } from '../../src/cli/sim.ts';
import { carriersComponent } from '../../src/delivery/carriers.ts';
import { loadConfig } from '../../src/config.ts';
import { totpCode } from '../../src/domain/totp.ts';
import { assertAccessible, browserAvailable, launchBrowser, newPage, screenshot, signIn } from '../helpers/browser.ts';
import { startPushReceiver, waitFor, type PushReceiver } from '../helpers/push-receiver.ts';
import { createPusher } from '../../src/delivery/pusher.ts';
import { verifyPushSignature } from '../../sdk/src/push.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { newSender, type Sender } from '../operations/send-helpers.ts';

const run = browserAvailable();
const [sqlite] = await storeTargets();
// Destinations the simulator refuses (outcomes.ts): 101 not delivered, 103 expired, 108 rejected, 747.
const FAILING = ['0521230101', '0521240103', '0521250108', '0521260747'];
const PUSH_ENV = { YONA_PUSH_ALLOW_PRIVATE: '1', YONA_PUSH_POLL_MS: '50' };
const DELIVERED = Array.from({ length: 16 }, (_, i) => `05212711${String(i).padStart(2, '0')}`);

describe('console daily pages in a browser', { skip: !run && 'Chromium not installed' }, () => {
  let t: TestService;
  let browser: Browser;
  let page: Page;
  let s: Sender;
  let campaignId: number;

  const settled = async (id: number, count: number) => {
    const final = () =>
      t.service.store.db
        .selectFrom('messages')
        .select(['phone', 'state', 'status'])
        .where('campaign_id', '=', id)
        .where('state', 'in', ['done', 'failed'])
        .execute();
    try {
      await waitFor(async () => (await final()).length === count, 'receipts for every message', 30_000);
    } catch (err) {
      const all = await t.service.store.db.selectFrom('messages').select(['phone', 'state', 'status']).execute();
      throw new Error(`${(err as Error).message}: ${JSON.stringify(all)}`);
    }
  };
  const tableRows = () => page.getByRole('region', { name: 'Messages' }).locator('tbody tr');

  before(async () => {
    t = await startTestService(sqlite, {
      env: PUSH_ENV,
      components: [
        carriersComponent({ config: loadConfig({}), settings: { pollMs: 20, simulatorReceiptDelayMs: 20 } }),
        createPusher({ config: loadConfig(PUSH_ENV) }),
      ],
    });
    s = await newSender(t, 'dov', 1000);
    await t.admin('add-number', 'dov', '0559990001');
    const sent = await s.sms({
      destinations: { phone: [...DELIVERED, ...FAILING] },
      message: 'Winter sale: 20% off',
      campaign_name: 'Winter',
    });
    assert.equal(sent.status, 0, JSON.stringify(sent));
    campaignId = sent.campaign_id;
    await settled(campaignId, DELIVERED.length + FAILING.length);
    browser = await launchBrowser();
    page = await newPage(browser);
    page.setDefaultTimeout(10_000);
    await signIn(page, t.httpsUrl, 'dov', 'secret-pw');
  });
  let receiver: PushReceiver | undefined;
  after(async () => {
    await browser?.close();
    await t?.close();
    await receiver?.close();
  });

  it('lists exactly the failed messages at /console/messages?status=failed, and exports the same rows', async () => {
    await page.goto(`${t.httpsUrl}/console/messages`);
    assert.equal(await tableRows().count(), DELIVERED.length + FAILING.length);
    await page.getByLabel('Status').selectOption('failed');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/status=failed/);
    assert.equal(new URL(page.url()).searchParams.get('status'), 'failed');
    const shown = (await tableRows().locator('td:nth-child(2)').allInnerTexts()).sort();
    assert.deepEqual(shown, [...FAILING].sort());
    await page.getByRole('cell', { name: /Failed: 101 Not delivered/ }).waitFor();
    await assertAccessible(page, 'messages (failed)');
    await screenshot(page, 'messages-failed');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download as CSV' }).click(),
    ]);
    const csv = readFileSync((await download.path())!, 'utf8');
    assert.ok(csv.startsWith('\uFEFFtime,phone,'), 'a BOM and one header row');
    const lines = csv.split('\r\n').filter(Boolean);
    assert.equal(lines.length, FAILING.length + 1);
    assert.deepEqual(
      lines
        .slice(1)
        .map((l) => l.split(',')[1].replace(/^"\t(\d+)"$/, '$1'))
        .sort(),
      [...FAILING].sort(),
    );
  });

  it("shows the campaign's text, delivery rate and failure reasons, and filters its messages", async () => {
    await page.goto(`${t.httpsUrl}/console/campaigns/${campaignId}`);
    await page.locator('blockquote').getByText('Winter sale: 20% off').waitFor();
    await page.getByText('80.0%').waitFor();
    const reasons = page.getByRole('region', { name: 'Outcomes and carrier errors' });
    await reasons.getByRole('cell', { name: 'Failed: 108 Rejected' }).waitFor();
    await reasons.getByRole('cell', { name: 'Delivered: 102 Delivered' }).waitFor();
    await page.locator('#chart canvas').first().waitFor();
    const ticks = await page.locator('#chart .u-axis').first().innerText();
    assert.doesNotMatch(ticks, /\.\d{3}|\d+ms/, `no millisecond ticks: ${ticks}`);
    await page.getByLabel('Status').selectOption('failed');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/status=failed/);
    assert.equal(await tableRows().count(), FAILING.length);
    await assertAccessible(page, 'campaign (filtered)');
    await screenshot(page, 'campaign-detail');
  });

  it('shows a reply sent with `yona sim mo` on /console/inbound, and the removal it caused', async () => {
    const optOut = await s.sms({ destinations: { phone: ['0521280001'] }, message: 'Reply STOP', add_unsubscribe: 2 });
    assert.equal(optOut.status, 0, JSON.stringify(optOut));
    await settled(optOut.campaign_id, 1);
    const info = JSON.parse(readFileSync(join(t.config.dataDir, 'simulator.json'), 'utf8')) as { controlUrl: string };
    const sim = (...args: string[]) => runSim([...args, '--control', info.controlUrl], () => {});
    await sim('mo', '--from', '0521271103', '--to', '0559990001', '--text', 'Is the sale on Friday too?');
    await sim('mo', '--from', '0521280001', '--to', '0559990001', '--text', 'stop');
    await waitFor(async () => {
      const rows = await t.service.store.db.selectFrom('inbound_messages').select('id').execute();
      return rows.length === 2;
    }, 'both replies stored');
    await page.goto(`${t.httpsUrl}/console/inbound`);
    const question = page.getByRole('row', { name: /Is the sale on Friday too\?/ });
    assert.match(await question.innerText(), /0521271103/);
    await question.getByRole('link', { name: `${campaignId} · Winter` }).waitFor();
    const stop = page.getByRole('row', { name: /stop/ });
    await stop.getByText('Removal: the sender is now blocked').waitFor();
    await page.getByLabel('Number or text').fill('Friday');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/q=Friday/);
    assert.equal(await page.getByRole('region', { name: 'Replies' }).locator('tbody tr').count(), 1);
    await assertAccessible(page, 'inbound');
    await screenshot(page, 'inbound');
  });

  it('sends from /console/send: the preview prices it, the handset gets it, and the charge is the preview', async () => {
    await page.goto(`${t.httpsUrl}/console/send`);
    await assertAccessible(page, 'send');
    await page.getByLabel('Phone numbers').fill('052-1290001\n0521290002, 0521290003');
    await page
      .getByLabel('Message', { exact: true })
      .fill('Shalom from the console: a message long enough to need a second part? '.repeat(3));
    await page.getByLabel('Campaign name (optional)').fill('From console');
    await page.getByRole('button', { name: 'Preview the price' }).click();
    const preview = page.getByRole('region', { name: 'Before sending' });
    await preview.waitFor();
    const price = Number((await preview.getByText(/^\d[\d,]* credits$/).innerText()).replace(/\D/g, ''));
    assert.equal(price, 6, 'three recipients of two parts each');
    const credits = (await s.balance()).credits;
    assert.equal(
      await t.service.store.db
        .selectFrom('campaigns')
        .select('id')
        .where('name', '=', 'From console')
        .executeTakeFirst(),
      undefined,
      'the preview kept nothing',
    );
    await assertAccessible(page, 'send (preview)');
    await screenshot(page, 'send-preview');
    await page.getByRole('button', { name: 'Send now' }).click();
    await page.getByText('The send was accepted.', { exact: false }).waitFor();
    assert.match(new URL(page.url()).pathname, /^\/console\/campaigns\/\d+$/);
    assert.equal((await s.balance()).credits, credits - price);
    const info = JSON.parse(readFileSync(join(t.config.dataDir, 'simulator.json'), 'utf8')) as { controlUrl: string };
    await waitFor(
      async () => {
        const lines: string[] = [];
        await runSim(['messages', '--to', '0521290002', '--json', '--control', info.controlUrl], (l) => lines.push(l));
        const got = JSON.parse(lines[0]) as { text: string }[];
        return got.some((m) => m.text.startsWith('Shalom from the console'));
      },
      'the simulated handset to receive the message',
      30_000,
    );
  });

  it('suspends a sub-account from the sub-accounts page: its token is refused until it is resumed', async () => {
    await t.admin('create-account', 'rina', '--password', 'rina-pw-123', '--credits', '100', '--reseller');
    await t.admin('create-account', 'rina-shop', '--password', 'shop-pw-123', '--credits', '10', '--parent', 'rina');
    const lines = await t.admin('create-token', 'rina-shop');
    const token = lines[lines.length - 1];
    const balance = () => t.api('balance', { user: { username: 'rina-shop' } }, { token });
    assert.equal((await balance()).status, 0);
    const reseller = await newPage(browser);
    reseller.setDefaultTimeout(10_000);
    await signIn(reseller, t.httpsUrl, 'rina', 'rina-pw-123');
    await reseller.goto(`${t.httpsUrl}/console/subaccounts`);
    reseller.once('dialog', (d) => void d.accept());
    await reseller.getByRole('button', { name: 'Suspend' }).click();
    await reseller.getByText('The sub-account is suspended', { exact: false }).waitFor();
    const refused = await balance();
    assert.equal(refused.status, 511);
    assert.match(String(refused.message), /suspended by its reseller/);
    await assertAccessible(reseller, 'subaccounts (suspended)');
    await screenshot(reseller, 'subaccounts-suspended');
    await reseller.getByRole('button', { name: 'Resume' }).click();
    await reseller.getByText('The sub-account is active again.').waitFor();
    assert.equal((await balance()).status, 0);
    await reseller.context().close();
  });

  it('turns two-factor on and signs in with a TOTP code computed in the test', async () => {
    await t.admin('create-account', 'tami', '--password', 'tami-pw-123', '--credits', '10');
    const p = await newPage(browser);
    p.setDefaultTimeout(10_000);
    await signIn(p, t.httpsUrl, 'tami', 'tami-pw-123');
    await p.goto(`${t.httpsUrl}/console/security`);
    await assertAccessible(p, 'security');
    await p.getByRole('button', { name: 'Turn two-factor on' }).click();
    const secret = (await p.locator('#totp-secret').innerText()).replace(/\s/g, '');
    const setupCode = totpCode(secret, Date.now());
    await p.getByLabel('Code from the app').fill(setupCode);
    await p.getByRole('button', { name: 'Confirm and turn on' }).click();
    await p.getByText('Two-factor sign-in is on.').waitFor();
    await assertAccessible(p, 'security (recovery codes)');
    await screenshot(p, 'security-two-factor');
    await p.context().close();
    const fresh = await newPage(browser);
    fresh.setDefaultTimeout(10_000);
    await signIn(fresh, t.httpsUrl, 'tami', 'tami-pw-123');
    await fresh.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
    assert.equal(new URL(fresh.url()).pathname, '/console/login');
    await assertAccessible(fresh, 'two-factor second step');
    await screenshot(fresh, 'login-second-step');
    // The code that confirmed the setup was used; the next step's code (one step of clock skew) signs in.
    await fresh.getByLabel('Two-factor code').fill(setupCode);
    await fresh.getByRole('button', { name: 'Verify and sign in' }).click();
    await fresh.getByText('Wrong or already used code.', { exact: false }).waitFor();
    await fresh.getByLabel('Two-factor code').fill(totpCode(secret, Date.now() + 30_000));
    await Promise.all([fresh.waitForNavigation(), fresh.getByRole('button', { name: 'Verify and sign in' }).click()]);
    assert.equal(new URL(fresh.url()).pathname, '/console');
    await fresh.context().close();
  });

  it('sends a signed test event to a push URL and shows its outcome in the last deliveries', async () => {
    receiver = await startPushReceiver((_, n) => (n === 0 ? 200 : 503));
    await page.goto(`${t.httpsUrl}/console/push`);
    await page.getByLabel('URL for incoming_sms events').fill(receiver.url);
    await page.locator('#push-incoming_sms-url ~ button').click();
    await page.getByText('The URL was registered.').waitFor();
    await page.getByRole('button', { name: 'Sign pushes: create a secret' }).click();
    const secret = await page.locator('#secret-value').inputValue();
    await page.goto(`${t.httpsUrl}/console/push`);
    const card = page.getByRole('region', { name: 'incoming_sms' });
    await card.getByRole('button', { name: 'Send a test event' }).click();
    await page.getByText('A signed test event is on its way', { exact: false }).waitFor();
    await waitFor(() => receiver!.received.length === 1, 'the test event at the receiver');
    const push = receiver.received[0];
    assert.equal(push.fields.message, 'Test event');
    assert.equal(push.fields.phone, '972500000000');
    assert.ok(verifyPushSignature(push.headers, push.body, secret), 'signed with the account secret');
    const log = () => page.getByRole('region', { name: 'Recent deliveries (incoming_sms)' }).locator('tbody tr');
    await waitFor(async () => {
      await page.goto(`${t.httpsUrl}/console/push`);
      return (await log().count()) === 1;
    }, 'the delivery in the log');
    assert.match(await log().first().innerText(), /200/);
    // A second test against a receiver now answering 503: the failure shows in the log and the state.
    await page.getByRole('region', { name: 'incoming_sms' }).getByRole('button', { name: 'Send a test event' }).click();
    await waitFor(async () => {
      await page.goto(`${t.httpsUrl}/console/push`);
      return (await log().count()) >= 2;
    }, 'the failed delivery in the log');
    assert.match(await log().first().innerText(), /503/);
    await page.getByText(/Failing: the last \d+ delivery rounds failed/).waitFor();
    await assertAccessible(page, 'push (tested)');
    await screenshot(page, 'push-test-event');
  });

  it('passes axe on the new pages in Hebrew, and the log fits a phone-sized screen', async () => {
    const phone = await newPage(browser, { viewport: { width: 375, height: 740 } });
    phone.setDefaultTimeout(10_000);
    await signIn(phone, t.httpsUrl, 'dov', 'secret-pw');
    await phone.goto(`${t.httpsUrl}/console/messages`);
    await phone.getByRole('link', { name: 'עברית' }).click();
    await phone.waitForURL(/\/console\/messages$/);
    for (const path of [
      '/console',
      '/console/messages?status=failed',
      `/console/campaigns/${campaignId}`,
      '/console/inbound',
      '/console/send',
      '/console/balance',
      '/console/security',
      '/console/codes',
      '/console/push',
    ]) {
      await phone.goto(`${t.httpsUrl}${path}`);
      assert.equal(await phone.locator('html').getAttribute('dir'), 'rtl');
      const overflow = await phone.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      assert.ok(overflow <= 0, `${path} is ${overflow}px wider than the screen`);
      await assertAccessible(phone, `${path} (Hebrew, phone)`);
    }
    // At 375 px the log's table is a list of cards: no table scrolls sideways, every cell is labelled with its
    // column's header.
    await phone.goto(`${t.httpsUrl}/console/messages`);
    const tables = await phone
      .locator('.scroll')
      .evaluateAll((els) => els.map((e) => ({ extra: e.scrollWidth - e.clientWidth, width: e.clientWidth })));
    assert.ok(tables.length > 0);
    for (const { extra, width } of tables) assert.ok(extra <= 0 && width <= 375, `a table scrolls ${extra}px`);
    const cells = await phone
      .locator('.scroll tbody tr')
      .first()
      .locator('td')
      .evaluateAll((tds) =>
        tds.map((td) => {
          const th = td.closest('table')!.querySelectorAll('thead th')[(td as HTMLTableCellElement).cellIndex];
          return {
            empty: td.innerHTML === '',
            label: getComputedStyle(td, '::before').content,
            header: th.textContent,
            display: getComputedStyle(td).display,
          };
        }),
      );
    assert.ok(cells.length >= 8);
    for (const c of cells) {
      assert.equal(c.label, JSON.stringify(c.header), 'the cell shows its column header');
      assert.equal(c.display, c.empty ? 'none' : 'block', 'one line per cell (none when empty), not a table column');
    }
    await screenshot(phone, 'messages-he-phone-cards');
    await phone.goto(`${t.httpsUrl}/console/messages?status=failed`);
    await screenshot(phone, 'messages-he-phone');
    await phone.context().close();
  });
});
