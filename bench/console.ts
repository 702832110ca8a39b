// `npm run bench -- console [--store postgres] [--messages N]`: a campaign of N (default 100,000) messages with
// their delivery outcomes spread over an hour, then its console page: the server's time for the page (median of
// 5 after one cold request), and in Chromium (when /usr/bin/chromium exists) the navigation's first contentful
// paint and the chart drawn, on the first visit to the page (after the overview) and again. Target: first
// paint under 1 s. Then the message log (bench/console-log.ts): the store filled to 1,000,000 messages, each
// filter's page time (target: p95 under 300 ms) and the campaign's CSV export (rows per second, peak memory);
// `--log-messages N` changes the count, `--no-log` leaves that part out. With `--admin`, the operator console's
// bench instead (bench/console-admin.ts).
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { Agent, request } from 'undici';
import { benchAdminConsole } from './console-admin.ts';
import { benchLog } from './console-log.ts';
import { benchStore, startBenchService } from './lib/service.ts';
import { DELIVERY } from '../src/domain/status.ts';

if (process.argv.includes('--admin')) {
  await benchAdminConsole();
  process.exit(0);
}
const countArg = process.argv.indexOf('--messages');
const total = countArg >= 0 ? Number(process.argv[countArg + 1]) : 100_000;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const store = benchStore();
const bench = await startBenchService(store);
const insecure = new Agent({ connect: { rejectUnauthorized: false } });
const ms = (from: bigint) => Math.round(Number(process.hrtime.bigint() - from) / 1e5) / 10;

try {
  await bench.admin('create-account', 'bench', '--password', 'bench-password', '--credits', '10');
  const { db } = bench.service.store;
  const account = await db
    .selectFrom('accounts')
    .select('id')
    .where('username', '=', 'bench')
    .executeTakeFirstOrThrow();
  const start = Date.now() - 3600_000;
  const campaign = await db
    .insertInto('campaigns')
    .values({
      account_id: account.id,
      name: 'Bench',
      kind: 'sms',
      source: 'Yona',
      state: 'sent',
      scheduled_at: null,
      recipients: total,
      credits_charged: total,
      agorot_charged: 0,
      options: '{}',
      created_at: start,
      released_at: start,
      finished_at: Date.now(),
      cancelled_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const buildStart = process.hrtime.bigint();
  for (let from = 0; from < total; from += 500) {
    const rows = Array.from({ length: Math.min(500, total - from) }, (_, k) => {
      const i = from + k;
      const at = start + Math.floor((i / total) * 3600_000);
      return {
        campaign_id: campaign.id,
        account_id: account.id,
        external_id: `ext-${i}`,
        phone: `9725${String(i).padStart(8, '0')}`,
        source: 'Yona',
        text: 'Bench message',
        parts: 1,
        cost_credits: 1,
        cost_agorot: 0,
        state: 'done' as const,
        status: i % 50 === 0 ? DELIVERY.NOT_DELIVERED : DELIVERY.DELIVERED,
        status_at: at + 5000,
        attempts: 1,
        next_attempt_at: at,
        lease_until: null,
        carrier: 'sim',
        error: null,
        created_at: start,
        submitted_at: at,
      };
    });
    await db.insertInto('messages').values(rows).execute();
  }
  const buildMs = ms(buildStart);

  // Sign in over HTTP(S) without a browser to time the server's page.
  const login = await request(`${bench.httpsUrl}/console/login`, { dispatcher: insecure });
  const page1 = await login.body.text();
  const loginCookie = String(login.headers['set-cookie']).split(';')[0];
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page1)![1];
  const signed = await request(`${bench.httpsUrl}/console/login`, {
    method: 'POST',
    dispatcher: insecure,
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: loginCookie },
    body: new URLSearchParams({ _csrf: csrf, username: 'bench', password: 'bench-password' }).toString(),
  });
  await signed.body.text();
  const cookies = ([] as string[])
    .concat(signed.headers['set-cookie'] as string | string[])
    .map((c) => c.split(';')[0]);
  const session = cookies.find((c) => c.startsWith('__Host-yona_session='))!;
  const url = `${bench.httpsUrl}/console/campaigns/${campaign.id}`;
  const timePage = async () => {
    const t0 = process.hrtime.bigint();
    const res = await request(url, { dispatcher: insecure, headers: { cookie: session } });
    const html = await res.body.text();
    if (res.statusCode !== 200 || !html.includes('id="chart"'))
      throw new Error(`campaign page answered ${res.statusCode}`);
    return { ms: ms(t0), bytes: Buffer.byteLength(html) };
  };
  const cold = await timePage();
  const warm = [];
  for (let i = 0; i < 5; i++) warm.push((await timePage()).ms);
  warm.sort((a, b) => a - b);

  let browser: Record<string, number> | string = 'skipped: no Chromium';
  if (existsSync(CHROMIUM)) {
    const b = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    try {
      const context = await b.newContext({ ignoreHTTPSErrors: true });
      const [name, value] = session.split(/=(.*)/s);
      await context.addCookies([{ name, value, url: bench.httpsUrl, secure: true, httpOnly: true, sameSite: 'Lax' }]);
      const p = await context.newPage();
      const measure = () =>
        p.evaluate(() => {
          const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
          const fcp = performance.getEntriesByName('first-contentful-paint')[0];
          return {
            responseEndMs: Math.round(nav.responseEnd),
            firstContentfulPaintMs: Math.round(fcp?.startTime ?? -1),
            loadMs: Math.round(nav.loadEventEnd),
            chartDrawnMs: Math.round(performance.now()),
          };
        });
      // A fresh browser opens the console's overview (Chromium's own start-up and the connection are not the
      // page's), then the campaign page for the first time (uPlot not cached yet), then the same page again.
      await p.goto(`${bench.httpsUrl}/console`);
      await p.goto(url);
      await p.locator('#chart canvas').first().waitFor();
      const first = await measure();
      await p.goto(`${url}?again=1`);
      await p.locator('#chart canvas').first().waitFor();
      const again = await measure();
      browser = Object.fromEntries([
        ...Object.entries(first).map(([k, v]) => [`first_${k}`, v]),
        ...Object.entries(again).map(([k, v]) => [`again_${k}`, v]),
      ]);
    } finally {
      await b.close();
    }
  }
  const log = process.argv.includes('--no-log')
    ? {}
    : await benchLog(bench, Number(account.id), session, Number(campaign.id), total);
  console.log(
    JSON.stringify({
      bench: 'console',
      store,
      messages: total,
      buildMs,
      pageBytes: cold.bytes,
      serverColdMs: cold.ms,
      serverWarmMedianMs: warm[2],
      browser,
      targetFirstPaintMs: 1000,
      ...log,
      targetLogPageP95Ms: 300,
      date: new Date().toISOString(),
    }),
  );
} finally {
  await bench.close();
}
