// Browser tests: Debian's Chromium driven by playwright-core. Without /usr/bin/chromium the tests are skipped
// with a visible notice; REQUIRE_BROWSER=1 (CI) makes its absence a failure. Also: axe-core checks and
// screenshots under test-results/console/, or into docs/images/ (the docs show them) with YONA_SCREENSHOTS=1.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const require = createRequire(import.meta.url);
/** Where screenshots go: docs/images/ when YONA_SCREENSHOTS=1 (to refresh the docs' pictures), else test-results/. */
export const SCREENSHOTS = join(
  import.meta.dirname,
  process.env.YONA_SCREENSHOTS === '1' ? '../../docs/images' : '../../test-results/console',
);

/** Whether browser tests can run; logs the notice (or throws under REQUIRE_BROWSER=1) when they cannot. */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.REQUIRE_BROWSER === '1')
    throw new Error(`REQUIRE_BROWSER=1 but Chromium is not installed at ${CHROMIUM}`);
  console.log(`# NOTICE: Chromium not found at ${CHROMIUM}; browser tests skipped (apt-get install chromium)`);
  return false;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/** A page in a fresh context (its own cookies) that accepts the test server's self-signed certificate. */
export async function newPage(
  browser: Browser,
  o: { viewport?: { width: number; height: number } } = {},
): Promise<Page> {
  const context = await browser.newContext({
    ignoreHTTPSErrors: true,
    viewport: o.viewport ?? { width: 1200, height: 800 },
  });
  return context.newPage();
}

let axeSource: string | undefined;

/** Runs axe-core on the page; fails on any serious or critical violation, naming each with its elements. */
export async function assertAccessible(page: Page, label: string): Promise<void> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  // evaluate runs over the DevTools protocol, outside the page's Content-Security-Policy.
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const result = await (globalThis as any).axe.run(document, { resultTypes: ['violations'] });
    return (result.violations as any[])
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`);
  });
  assert.deepEqual(violations, [], `axe on ${label}`);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Signs in through the login form; the page then shows the console. */
export async function signIn(page: Page, baseUrl: string, username: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/console/login`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  // The form's answer is a navigation (a page with the error, or a redirect into the console): wait for it.
  await Promise.all([
    page.waitForNavigation({ waitUntil: 'load' }),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
}
