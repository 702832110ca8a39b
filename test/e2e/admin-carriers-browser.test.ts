// Carriers and routes from the operator console in Chromium on every store, applied without a restart: a running
// service (its delivery workers in the process, no carrier configured yet) gets two SMPP carriers, each a
// `yona smsc-sim` started by the test as a process of its own, and a failover route to them, all added through the
// forms of /admin/carriers and /admin/routes; the route test form names them in order. A customer's API `sms` send
// then reaches the first simulator, and /admin/messages shows that carrier; with the first simulator killed, the
// next send goes through the second and shows so. The carrier page shows its health and chart; /admin/audit holds
// every change with its state before and after (the carrier password hidden); axe finds nothing serious in English
// or Hebrew. Screenshots: see test/helpers/browser.ts (YONA_SCREENSHOTS=1 writes them into docs/images/).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { loadConfig } from '../../src/config.ts';
import { carriersComponent } from '../../src/delivery/carriers.ts';
import { totpCode } from '../../src/domain/totp.ts';
import { eventually, mobiles } from '../delivery/delivery-helpers.ts';
import { assertAccessible, browserAvailable, launchBrowser, newPage, screenshot } from '../helpers/browser.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { startSmscSimProcess, type SmscSimProcess } from '../helpers/smsc-sim-process.ts';
import { storeTargets } from '../helpers/stores.ts';
import { newSender, type Sender } from '../operations/send-helpers.ts';

const run = browserAvailable();
const international = (phone: string) => `972${phone.slice(1)}`;

const targets = await storeTargets();
for (const [index, target] of targets.entries()) {
  describe(`carriers and a failover route from the operator console (${target.name})`, {
    skip: !run && 'Chromium not installed',
  }, () => {
    let first: SmscSimProcess;
    let second: SmscSimProcess;
    let t: TestService;
    let shop: Sender;
    let browser: Browser;
    let page: Page;
    const shots = target.name === 'sqlite';
    const [toFirst, toSecond] = mobiles(2, 547_000_000 + index * 100_000);

    const submit = (name: string) =>
      Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.getByRole('button', { name }).click()]);
    // The carrier /admin/messages shows for the message to `phone`.
    const carrierShown = async (phone: string) => {
      await page.goto(`${t.httpsUrl}/admin/messages?phone=${international(phone)}`);
      return (await page.locator('td[data-label="Carrier"]').allInnerTexts()).map((s) => s.trim());
    };

    before(async () => {
      first = await startSmscSimProcess(['--receipt-delay', '20']);
      second = await startSmscSimProcess(['--receipt-delay', '20']);
      // The delivery workers run from the start, on the bundled simulators: nothing is restarted below.
      t = await startTestService(target, {
        components: [
          carriersComponent({
            settings: { pollMs: 20, retryBaseMs: 200, retryMaxMs: 2000 },
            config: loadConfig({}),
            reloadMs: 300,
          }),
        ],
      });
      await t.admin('create-operator', 'dana', '--password', 'dana-pw-123');
      shop = await newSender(t, 'shop', 100);
      browser = await launchBrowser();
      page = await newPage(browser);
      page.setDefaultTimeout(15_000);
    });
    after(async () => {
      await browser?.close();
      await t?.close();
      await first?.stop();
      await second?.stop();
    });

    it('the operator signs in, enrolling an authenticator', async () => {
      await page.goto(`${t.httpsUrl}/admin/login`);
      if (shots) await screenshot(page, 'admin-login');
      await page.getByLabel('Operator name').fill('dana');
      await page.getByLabel('Password').fill('dana-pw-123');
      await submit('Sign in');
      const secret = (await page.locator('#totp-secret').innerText()).replace(/\s/g, '');
      await page.getByLabel('The code your app shows now').fill(totpCode(secret, Date.now()));
      await submit('Verify');
      assert.equal(new URL(page.url()).pathname, '/admin');
    });

    it('adds two SMPP carriers and a failover route in the console; the route test names them in order', async () => {
      for (const [name, sim] of [
        ['first', first],
        ['second', second],
      ] as const) {
        await page.goto(`${t.httpsUrl}/admin/carriers`);
        await page.locator('#carrier-name').fill(name);
        // The WhatsApp fields show when that protocol is chosen, and hide again for SMPP's.
        await page.locator('#carrier-protocol-whatsapp-cloud').check();
        assert.equal(await page.locator('#carrier-whatsapp-cloud-token').isVisible(), true);
        assert.equal(await page.locator('#carrier-smpp-host').isVisible(), false);
        await page.locator('#carrier-protocol-smpp').check();
        assert.equal(await page.locator('#carrier-whatsapp-cloud-token').isVisible(), false);
        await page.locator('#carrier-smpp-host').fill('127.0.0.1');
        await page.locator('#carrier-smpp-port').fill(String(sim.smppPort));
        await page.locator('#carrier-smpp-system-id').fill('yona');
        await page.locator('#carrier-smpp-password').fill('secret');
        await page.locator('#carrier-smpp-window').fill('10');
        if (shots && name === 'first') await screenshot(page, 'admin-carrier-form');
        await submit('Save');
        assert.match(await page.locator('main').innerText(), /Done/);
      }
      await page.goto(`${t.httpsUrl}/admin/routes`);
      await page.locator('#route-prefix').fill('');
      await page.locator('#route-carriers').fill('first, second');
      await submit('Save');
      assert.match(await page.locator('main').innerText(), /first → second/);
      if (shots) await screenshot(page, 'admin-routes');
      await page.locator('#test-to').fill(toFirst);
      await page.locator('#test-account').fill('shop');
      await page.locator('#test-source').fill('Yona');
      await submit('Test the route');
      const order = await page.locator('#route-test-answer ol.carrier-order li').allInnerTexts();
      assert.deepEqual(order, ['first', 'second']);
      await assertAccessible(page, 'route test answer (en)');
      if (shots) await screenshot(page, 'admin-route-test');
    });

    it("a customer's API send goes out through the new carrier, without a restart", async () => {
      // The running node binds the carriers within its reload period: sends go to them from then on.
      await eventually(
        async () => ((await first.stats()).binds > 0 && (await second.stats()).binds > 0) || undefined,
        15_000,
        'first bound',
      );
      const reply = await shop.sms({ destinations: { phone: [{ $: { id: 'one' }, _: toFirst }] } });
      assert.equal(reply.status, 0, JSON.stringify(reply));
      const received = await eventually(
        async () => ((await first.messages(international(toFirst))).length > 0 ? first.messages() : undefined),
        20_000,
        'the first simulator received it',
      );
      assert.equal(received.filter((m) => m.destination === international(toFirst)).length, 1);
      assert.equal((await second.messages(international(toFirst))).length, 0);
      assert.deepEqual(
        await eventually(async () => {
          const shown = await carrierShown(toFirst);
          return shown[0] === 'first' ? shown : undefined;
        }, 15_000),
        ['first'],
      );
      if (shots) await screenshot(page, 'admin-messages');
    });

    it('with the first carrier killed, the failover route gives the next send to the second', async () => {
      await first.stop();
      const reply = await shop.sms({ destinations: { phone: [{ $: { id: 'two' }, _: toSecond }] } });
      assert.equal(reply.status, 0, JSON.stringify(reply));
      await eventually(
        async () => (await second.messages(international(toSecond))).length > 0 || undefined,
        30_000,
        'the second simulator received it',
      );
      assert.equal(first.receivedAtExit.filter((m) => m.destination === international(toSecond)).length, 0);
      assert.deepEqual(
        await eventually(async () => {
          const shown = await carrierShown(toSecond);
          return shown[0] === 'second' ? shown : undefined;
        }, 15_000),
        ['second'],
      );
    });

    it("shows each carrier's health now and its messages as a chart", async () => {
      await page.goto(`${t.httpsUrl}/admin/carriers`);
      await eventually(async () => {
        await page.reload();
        const text = await page.locator('main').innerText();
        return /second\s+smpp\s+up/.test(text) || undefined;
      }, 15_000);
      await assertAccessible(page, '/admin/carriers (en)');
      if (shots) await screenshot(page, 'admin-carriers');
      await page.getByRole('link', { name: 'second', exact: true }).first().click();
      await page.waitForURL(/\/admin\/carriers\/second$/);
      // uPlot draws into the chart's holder from the page's JSON.
      await page.locator('#chart canvas').waitFor();
      const data = JSON.parse(await page.locator('#chart-data').innerText()) as {
        delivered: number[];
        failed: number[];
      };
      assert.equal(data.delivered.reduce((a, b) => a + b, 0) + data.failed.reduce((a, b) => a + b, 0) <= 1, true);
      assert.match(await page.locator('main').innerText(), /Health now[\s\S]*up/);
      await assertAccessible(page, '/admin/carriers/second (en)');
      if (shots) await screenshot(page, 'admin-carrier');
    });

    it('every change is in the audit log with its state before and after, the carrier password hidden', async () => {
      // A change of the route: its row holds the carriers before and after.
      await page.goto(`${t.httpsUrl}/admin/routes`);
      await page.locator('#route-carriers').fill('second, first');
      await submit('Save');
      await page.goto(`${t.httpsUrl}/admin/audit`);
      const audit = await page.locator('main').innerText();
      assert.match(audit, /setCarrier\s+carrier first[\s\S]*protocol: "smpp"/);
      assert.match(audit, /setCarrier\s+carrier second/);
      assert.match(audit, /setRoute\s+route default\s+carriers: "first,second"\s+carriers: "second,first"/);
      assert.match(audit, new RegExp(`"port":${second.smppPort}`));
      assert.match(audit, /"password":"\(hidden\)"/);
      assert.doesNotMatch(audit, /"secret"/);
      if (shots) await screenshot(page, 'admin-audit-carriers');
      const csv = await page.evaluate(async () => (await fetch('/admin/audit.csv')).text());
      const rows = csv.split('\n').filter((l) => /,dana,console,[^,]+,(setCarrier|setRoute),/.test(l));
      assert.equal(rows.length, 4, csv);
      assert.doesNotMatch(csv, /"secret"|""secret""/);
    });

    it('the carrier and route pages pass axe in Hebrew, right to left', async () => {
      await page.goto(`${t.httpsUrl}/admin/lang/he?back=/admin/carriers`);
      assert.equal(await page.locator('html').getAttribute('dir'), 'rtl');
      for (const path of ['/admin/carriers', '/admin/carriers/second', '/admin/routes']) {
        await page.goto(`${t.httpsUrl}${path}`);
        await assertAccessible(page, `${path} (he)`);
      }
      if (shots) await screenshot(page, 'admin-routes-he');
      await page.goto(`${t.httpsUrl}/admin/lang/en?back=/admin`);
    });
  });
}
