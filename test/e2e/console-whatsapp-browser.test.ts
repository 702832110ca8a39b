// The console's WhatsApp pages in Chromium (playwright-core) on every store, against `yona serve` with its bundled
// Cloud API simulator (carrier simulator-whatsapp): a WhatsApp user writes to the business (`yona sim mo --channel
// whatsapp`), the replies page lists the conversation (and none of another account's), the thread shows the
// user's message, the customer answers from the reply box, the simulator's user receives the answer (`yona sim
// messages --channel whatsapp`) and its status reaches "Read" in the thread; a user who never wrote gets the
// note that only a template may be sent, and a template sent from the picker reaches them with its variable; the
// message log's channel filter shows the WhatsApp messages; the templates page lists the simulator's shipped
// templates with their status. axe-core on each new page in English and in Hebrew (on a phone-sized screen too);
// screenshots under test-results/console/.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { assertAccessible, browserAvailable, launchBrowser, newPage, screenshot, signIn } from '../helpers/browser.ts';
import { startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';
import { storeTargets } from '../helpers/stores.ts';

const BUSINESS = '972771230000';
const OTHER_BUSINESS = '972771239999';
const USER = '972521234567';
const NEW_USER = '972521230002';
const OTHER_USER = '972531112222';

const run = browserAvailable();

async function submit(page: Page, button: string): Promise<void> {
  await Promise.all([
    page.waitForNavigation({ waitUntil: 'load' }),
    page.getByRole('button', { name: button }).click(),
  ]);
}

/** Reloads `page` until `check` holds (the server takes webhooks and statuses in the background). */
async function reloadUntil(page: Page, check: () => Promise<boolean>, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    assert.ok(Date.now() < deadline, `${what}; page: ${await page.locator('main').innerText()}`);
    await new Promise((r) => setTimeout(r, 300));
    await page.reload();
  }
}

for (const target of await storeTargets()) {
  describe(`the console's WhatsApp pages in a browser (${target.name})`, {
    skip: !run && 'Chromium not installed',
  }, () => {
    let created: Awaited<ReturnType<typeof target.create>>;
    let serve: ServeProcess;
    let browser: Browser;
    let page: Page;
    let base: string;
    const cli = async (...args: string[]) => {
      const r = await serve.cli(...args);
      assert.equal(r.status, 0, `yona ${args.join(' ')}: ${r.stderr}${r.stdout}`);
      return r.stdout;
    };
    /** What the simulator's user `to` received (text, or template name and variables). */
    const received = async (to: string) =>
      JSON.parse(await cli('sim', 'messages', '--channel', 'whatsapp', '--to', to, '--json')) as Array<{
        business: string;
        text: string;
        template?: { name: string; variables: string[] };
      }>;
    const conversations = () => page.getByRole('region', { name: 'WhatsApp conversations' });
    const threadRows = () => page.getByRole('region', { name: 'Messages of the conversation' }).locator('tbody tr');

    before(async () => {
      created = await target.create();
      serve = await startServeProcess(created.env, { YONA_CARRIERS_FILE: '' });
      for (const [name, number] of [
        ['acme', BUSINESS],
        ['other', OTHER_BUSINESS],
      ]) {
        await cli('admin', 'create-account', name, '--password', 'secret-pw', '--credits', '10');
        await cli('admin', 'whatsapp-number', 'add', name, number);
      }
      await cli('sim', 'mo', '--channel', 'whatsapp', '--from', USER, '--to', BUSINESS, '--text', 'Is my order ready?');
      await cli(
        'sim',
        'mo',
        '--channel',
        'whatsapp',
        '--from',
        OTHER_USER,
        '--to',
        OTHER_BUSINESS,
        '--text',
        'Not acme',
      );
      base = `https://127.0.0.1:${serve.httpsPort}`;
      browser = await launchBrowser();
      page = await newPage(browser);
      page.setDefaultTimeout(10_000);
      await signIn(page, base, 'acme', 'secret-pw');
    });
    after(async () => {
      await browser?.close();
      await serve?.stop();
      await created?.cleanup();
    });

    it("lists the user's conversation on the replies page, and not another account's", async () => {
      await page.getByRole('link', { name: 'Replies', exact: true }).click();
      const link = conversations().getByRole('link', { name: '0521234567' });
      await reloadUntil(page, async () => (await link.count()) > 0, 'the conversation is listed');
      await page.getByRole('heading', { name: 'WhatsApp conversations' }).waitFor();
      assert.doesNotMatch(await page.locator('main').innerText(), /Not acme|0531112222/, "another account's");
      await assertAccessible(page, 'replies with conversations (en)');
      await screenshot(page, 'whatsapp-replies');
    });

    it('answers from the reply box; the user receives it and the thread shows it read', async () => {
      // The reply's own row in the replies table links to the conversation too.
      await page.getByRole('region', { name: 'Replies' }).getByRole('link', { name: '0521234567' }).waitFor();
      await conversations().getByRole('link', { name: '0521234567' }).click();
      await page.getByRole('heading', { name: 'WhatsApp with 0521234567' }).waitFor();
      assert.deepEqual(await threadRows().first().locator('td').nth(2).innerText(), 'Is my order ready?');
      await page.getByText('The reply window is open until').waitFor();
      await assertAccessible(page, 'thread, window open (en)');
      await page.getByLabel('Your reply').fill('Yes, it ships today');
      await submit(page, 'Send the reply');
      await page.getByText('Your reply was accepted and is on its way.').waitFor();

      const deadline = Date.now() + 20_000;
      while (!(await received(USER)).some((m) => m.text === 'Yes, it ships today')) {
        assert.ok(Date.now() < deadline, 'the simulated user received the reply');
        await new Promise((r) => setTimeout(r, 300));
      }
      const [got] = await received(USER);
      assert.equal(got.business, BUSINESS);

      const replyRow = () => threadRows().filter({ hasText: 'Yes, it ships today' });
      await reloadUntil(
        page,
        async () => (await replyRow().locator('td').nth(3).innerText()).trim() === 'Read',
        'the reply read',
      );
      assert.equal(await threadRows().count(), 2);
      assert.equal((await threadRows().nth(1).locator('td').nth(1).innerText()).trim(), 'You');
      await screenshot(page, 'whatsapp-thread');
    });

    it('offers only a template to a user who never wrote, and sends one from the picker', async () => {
      await page.goto(`${base}/console/whatsapp/threads/${BUSINESS}/${NEW_USER}`);
      await page.getByText('This user has not written to this business number').waitFor();
      assert.equal(await page.getByLabel('Your reply').count(), 0, 'no reply box');
      await assertAccessible(page, 'thread, window closed (en)');
      await page.getByLabel('Template', { exact: true }).selectOption('order_update|en');
      await page.getByLabel('Variable 1').fill('A-17');
      await submit(page, 'Send the template');
      await page.getByText('The template was accepted and is on its way.').waitFor();
      const deadline = Date.now() + 20_000;
      for (;;) {
        const got = (await received(NEW_USER)).find((m) => m.template?.name === 'order_update');
        if (got) {
          assert.deepEqual(got.template?.variables, ['A-17']);
          assert.equal(got.text, 'Your order A-17 is on its way.');
          break;
        }
        assert.ok(Date.now() < deadline, 'the simulated user received the template');
        await new Promise((r) => setTimeout(r, 300));
      }
      await threadRows().filter({ hasText: 'Your order A-17 is on its way.' }).waitFor();
    });

    it("filters the message log by channel, showing each message's channel", async () => {
      await page.goto(`${base}/console/messages`);
      await page.getByLabel('Channel').selectOption('whatsapp');
      await submit(page, 'Apply');
      const rows = page.getByRole('region', { name: 'Messages' }).locator('tbody tr');
      await rows.first().waitFor();
      assert.equal(await rows.count(), 2);
      for (const cell of await rows.locator('td:nth-child(4)').allInnerTexts()) assert.equal(cell.trim(), 'WhatsApp');
      assert.match(
        (await page.getByRole('link', { name: 'Download as CSV' }).getAttribute('href')) ?? '',
        /channel=whatsapp/,
      );
    });

    it("lists the business number's templates with their status", async () => {
      await page.getByRole('link', { name: 'WhatsApp templates', exact: true }).click();
      await page.getByRole('heading', { name: 'WhatsApp templates', level: 1 }).waitFor();
      const rows = page.getByRole('region', { name: 'Templates of 0771230000' }).locator('tbody tr');
      await reloadUntil(page, async () => (await rows.count()) >= 3, 'the shipped templates are listed');
      const table = await rows.evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 5).map((td) => td.textContent?.trim())),
      );
      assert.deepEqual(
        table.filter((r) => ['hello_world', 'order_update', 'spring_sale'].includes(r[0] ?? '')),
        [
          ['hello_world', 'en_US', 'UTILITY', 'APPROVED', '0'],
          ['order_update', 'en', 'UTILITY', 'APPROVED', '1'],
          ['spring_sale', 'en', 'MARKETING', 'PENDING', '2'],
        ],
      );
      await assertAccessible(page, 'templates (en)');
      await screenshot(page, 'whatsapp-templates');
    });

    it('passes axe on each page in Hebrew, on a wide and a phone-sized screen', async () => {
      for (const viewport of [undefined, { width: 375, height: 740 }]) {
        const he = await newPage(browser, { viewport });
        await signIn(he, base, 'acme', 'secret-pw');
        await he.getByRole('link', { name: 'עברית' }).click();
        for (const [path, heading] of [
          ['/console/inbound', 'שיחות וואטסאפ'],
          [`/console/whatsapp/threads/${BUSINESS}/${USER}`, 'וואטסאפ עם 0521234567'],
          [`/console/whatsapp/threads/${BUSINESS}/${NEW_USER}`, 'וואטסאפ עם 0521230002'],
          ['/console/whatsapp/templates', 'תבניות וואטסאפ'],
        ]) {
          await he.goto(`${base}${path}`);
          await he.getByRole('heading', { name: heading }).first().waitFor();
          assert.equal(await he.locator('html').getAttribute('dir'), 'rtl');
          await assertAccessible(he, `${path} (he${viewport ? ', phone' : ''})`);
        }
        if (viewport) {
          // Tables are cards on a phone: nothing scrolls sideways.
          const wide = await he.evaluate(() => document.documentElement.scrollWidth);
          assert.ok(wide <= 375, `the page is ${wide}px wide`);
          await screenshot(he, 'whatsapp-templates-he-phone');
        }
        await he.context().close();
      }
    });
  });
}
