// The customer's SMPP page in Chromium (playwright-core) against `yona serve` with its SMPP listener: the account's
// live binds (type, the address they came from, node) and the receipts waiting for a receiver bind, and none of
// another account's; then, once a receiver takes the receipt, nothing waiting. axe-core in English and in Hebrew
// on a phone-sized screen; screenshots under test-results/console/.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { assertAccessible, browserAvailable, launchBrowser, newPage, screenshot, signIn } from '../helpers/browser.ts';
import { freePort } from '../helpers/kannel.ts';
import { runCli, startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';
import { Esme } from '../smpp-server/esme.ts';
import { storeTargets } from '../helpers/stores.ts';

/** A customer's bind of `kind`, as `systemId`, to the SMPP server on `port`; fails unless it is taken. */
async function bindAs(
  port: number,
  systemId: string,
  password: string,
  kind: 'transmitter' | 'receiver' | 'transceiver',
): Promise<Esme> {
  const esme = await Esme.connect(port);
  const status = await esme.bind(kind, systemId, password);
  assert.equal(status, 0, `bind_${kind} of ${systemId}: 0x${status.toString(16)}`);
  return esme;
}

const run = browserAvailable();
const [sqlite] = await storeTargets();

describe('the console SMPP page in a browser', { skip: !run && 'Chromium not installed' }, () => {
  let created: Awaited<ReturnType<typeof sqlite.create>>;
  let serve: ServeProcess;
  let port: number;
  let browser: Browser;
  let page: Page;
  const esmes: Esme[] = [];
  const admin = async (...args: string[]) => {
    const r = await runCli({ ...process.env, DATABASE_URL: '', ...created.env }, ['admin', ...args]);
    assert.equal(r.status, 0, `yona admin ${args.join(' ')}: ${r.stderr}${r.stdout}`);
  };
  const waitingText = () => page.locator('#smpp-waiting').innerText();
  const rows = () => page.getByRole('region', { name: 'Binds now' }).locator('tbody tr');

  before(async () => {
    created = await sqlite.create();
    for (const name of ['acme', 'other']) {
      await admin(
        ...(name === 'acme' ? ['--new-store'] : []),
        'create-account',
        name,
        '--password',
        'secret-pw',
        '--credits',
        '10',
      );
      await admin('verify-sender', name, 'Acme');
      await admin('smpp-password', name, `pw-${name}`);
    }
    port = await freePort();
    serve = await startServeProcess(created.env, {
      YONA_CARRIERS_FILE: '',
      YONA_SMPP_PORT: String(port),
      YONA_SMPP_HOST: '127.0.0.1',
      YONA_NODE_NAME: 'node-a',
    });
    browser = await launchBrowser();
    page = await newPage(browser);
    page.setDefaultTimeout(10_000);
    await signIn(page, `https://127.0.0.1:${serve.httpsPort}`, 'acme', 'secret-pw');
  });
  after(async () => {
    for (const e of esmes) await e.unbind().catch(() => {});
    await browser?.close();
    await serve?.stop();
    await created?.cleanup();
  });

  it('shows no bind and nothing waiting before the gateway binds', async () => {
    await page.getByRole('link', { name: 'SMPP', exact: true }).click();
    await page.getByRole('heading', { name: 'SMPP sessions' }).waitFor();
    assert.equal(await waitingText(), 'Receipts and replies waiting for a receiver bind: 0');
    await page.getByText('No bind now.').waitFor();
    await assertAccessible(page, 'smpp (none)');
  });

  it("lists the account's binds and the receipt waiting, not another account's binds", async () => {
    const tx = await bindAs(port, 'acme', 'pw-acme', 'transmitter');
    esmes.push(tx, await bindAs(port, 'other', 'pw-other', 'transceiver'));
    const resp = await tx.submit({
      source_addr: 'Acme',
      destination_addr: '0521230019',
      short_message: 'a receipt please',
      registered_delivery: 1,
    });
    assert.equal(resp.command_status, 0);
    const deadline = Date.now() + 20_000;
    for (;;) {
      await page.goto(`https://127.0.0.1:${serve.httpsPort}/console/smpp`);
      if ((await waitingText()).endsWith(': 1') && (await rows().count()) === 1) break;
      assert.ok(Date.now() < deadline, `page: ${await page.locator('main').innerText()}`);
      await new Promise((r) => setTimeout(r, 300));
    }
    const cells = await rows().first().locator('td').allInnerTexts();
    assert.equal(cells[0], 'transmitter');
    assert.equal(cells[1], '127.0.0.1');
    assert.equal(cells[2], 'node-a');
    assert.doesNotMatch((await rows().allInnerTexts()).join('\n'), /transceiver/, "another account's bind");
    await assertAccessible(page, 'smpp (binds)');
    await screenshot(page, 'smpp');
  });

  it('shows nothing waiting once a receiver bind takes the receipt', async () => {
    const rx = await bindAs(port, 'acme', 'pw-acme', 'receiver');
    esmes.push(rx);
    const deadline = Date.now() + 20_000;
    for (;;) {
      await page.goto(`https://127.0.0.1:${serve.httpsPort}/console/smpp`);
      if ((await waitingText()).endsWith(': 0') && (await rows().count()) === 2) break;
      assert.ok(Date.now() < deadline, `page: ${await page.locator('main').innerText()}`);
      await new Promise((r) => setTimeout(r, 300));
    }
    assert.equal(rx.received.length, 1);
  });

  it('passes axe in Hebrew on a phone-sized screen', async () => {
    const phone = await newPage(browser, { viewport: { width: 375, height: 740 } });
    await signIn(phone, `https://127.0.0.1:${serve.httpsPort}`, 'acme', 'secret-pw');
    await phone.getByRole('link', { name: 'עברית' }).click();
    await phone.goto(`https://127.0.0.1:${serve.httpsPort}/console/smpp`);
    await phone.getByRole('heading', { name: 'חיבורי SMPP' }).waitFor();
    assert.equal(await phone.locator('html').getAttribute('dir'), 'rtl');
    await assertAccessible(phone, 'smpp (Hebrew, phone)');
    await screenshot(phone, 'smpp-he-phone');
    await phone.context().close();
  });
});
