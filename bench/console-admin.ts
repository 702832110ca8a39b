// `npm run bench -- console --admin [--store postgres] [--messages N] [--accounts N] [--concurrency N]
// [--requests N]`: the operator console on a big store. Fills it with N (default 1,000,000) messages spread over
// `--accounts` (default 100) accounts and four carriers, accepted over the 30 days before now (2% not delivered,
// 1% blocked, the newest 0.2% still waiting for a receipt), written straight into the store by INSERT ... SELECT.
// Then signs an operator in as a browser would (password, then the authenticator's code: the secret shown at
// enrolment) and times /admin and /admin/messages, unfiltered and with each filter the page offers, with
// `--concurrency` (default 4: operators are few) requests in flight and `--requests` (default 200) per page after a warm-up.
// Prints one JSON line: p50, p95 and p99 per page. Target: p95 under 150 ms on both stores.
import { sql } from 'kysely';
import { Agent, request } from 'undici';
import { totpCode } from '../src/domain/totp.ts';
import { ensureMonthPartitions } from '../src/store/partitions.ts';
import { analyzeMessages, eightDigitsOf, sentCampaign, seriesOf } from './lib/fill-messages.ts';
import { benchStore, startBenchService, type BenchService } from './lib/service.ts';

const DAY = 24 * 3600_000;
const insecure = new Agent({ connect: { rejectUnauthorized: false }, connections: 64 });
const numberArg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};

/** Adds `perAccount` messages to each account (one campaign each), accepted over the 30 days before `end`. */
export async function fill(bench: BenchService, accountIds: number[], perAccount: number, end: number): Promise<void> {
  const { db, dialect } = bench.service.store;
  const first = end - 30 * DAY;
  const n = perAccount;
  // A store that has run for a month has that month's partitions (PostgreSQL), not a default partition of it all.
  await ensureMonthPartitions(db, first);
  for (const [a, accountId] of accountIds.entries()) {
    const campaign = await sentCampaign(db, {
      accountId,
      name: 'Bench traffic',
      recipients: n,
      at: first,
      finishedAt: end,
    });
    const series = seriesOf(dialect, n);
    // k numbers every message of the store; the accounts' messages interleave in time.
    const k = sql`(i * ${sql.lit(accountIds.length)} + ${sql.lit(a)})`;
    const digits = eightDigitsOf(dialect, k);
    const at = sql`(${sql.lit(first)} + (${k} * ${sql.lit(30 * DAY)}) / ${sql.lit(n * accountIds.length)})`;
    const pending = sql`(i >= ${sql.lit(Math.floor(n * 0.998))})`;
    const carrier = sql`case (${k} % 7) % 4 when 0 then 'cellcom' when 1 then 'partner' when 2 then 'pelephone' else 'hot' end`;
    await sql`insert into messages (campaign_id, account_id, external_id, phone, source, text, parts, cost_credits,
      cost_agorot, state, status, status_at, attempts, next_attempt_at, lease_until, carrier, error, created_at, submitted_at)
      select ${sql.lit(campaign)}, ${sql.lit(accountId)}, null,
        '9725' || ${digits}, 'Yona', 'Bench message number ' || cast(${k} as text), 1, 1, 0,
        case when ${pending} then 'submitted' when ${k} % 97 = 0 then 'skipped' else 'done' end,
        case when ${pending} then -1 when ${k} % 97 = 0 then 201 when ${k} % 50 = 0 then 101 else 102 end,
        ${at} + 5000, 1, ${at}, null,
        case when ${k} % 97 = 0 then null else ${carrier} end,
        case when ${k} % 50 = 0 and ${k} % 97 <> 0 and not ${pending} then 'simulated refusal' else null end,
        ${at}, ${at}
      from (${series}) as series`.execute(db);
  }
  await analyzeMessages(db, dialect);
}

/** Signs the operator in (password, then the code of the secret the enrolment shows); answers the session cookie. */
async function signIn(baseUrl: string, name: string, password: string): Promise<string> {
  const jar = new Map<string, string>();
  const send = async (path: string, form?: Record<string, string>) => {
    const headers: Record<string, string> = { 'accept-language': 'en' };
    if (jar.size) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await request(`${baseUrl}${path}`, {
      method: form ? 'POST' : 'GET',
      headers,
      body: form ? new URLSearchParams(form).toString() : undefined,
      dispatcher: insecure,
    });
    const raw = res.headers['set-cookie'];
    for (const c of raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]) {
      const [pair] = c.split(';');
      const eq = pair.indexOf('=');
      if (/Max-Age=0/i.test(c)) jar.delete(pair.slice(0, eq));
      else jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    const text = await res.body.text();
    return { status: res.statusCode, text, csrf: /name="_csrf" value="([^"]+)"/.exec(text)?.[1] ?? '' };
  };
  const login = await send('/admin/login');
  const step = await send('/admin/login', { _csrf: login.csrf, name, password });
  const secret = /id="totp-secret">([A-Z2-7 ]+)</.exec(step.text)?.[1].replace(/ /g, '');
  if (!secret) throw new Error(`the password step answered ${step.status} without an enrolment`);
  const done = await send('/admin/login/code', { _csrf: step.csrf, code: totpCode(secret, Date.now()) });
  const session = jar.get('__Host-yona_admin_session');
  if (done.status !== 303 || !session) throw new Error(`the code step answered ${done.status}`);
  return `__Host-yona_admin_session=${session}`;
}

interface PageFigures {
  p50: number;
  p95: number;
  p99: number;
  rows: number;
}

/** Times `requests` GETs of `url` with `concurrency` in flight (after `concurrency` untimed ones). */
async function timePage(url: string, cookie: string, concurrency: number, requests: number): Promise<PageFigures> {
  const get = async () => {
    const t0 = performance.now();
    const res = await request(url, { dispatcher: insecure, headers: { cookie, 'accept-language': 'en' } });
    const body = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}`);
    return { ms: performance.now() - t0, body };
  };
  const warm = await Promise.all(Array.from({ length: concurrency }, get));
  const times: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < requests) times.push((await get()).ms);
    }),
  );
  times.sort((a, b) => a - b);
  const at = (q: number) => Math.round(times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)] * 10) / 10;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), rows: [...warm[0].body.matchAll(/<tr><td[ >]/g)].length };
}

/** The whole bench: prints its JSON line. */
export async function benchAdminConsole(): Promise<void> {
  const store = benchStore();
  const total = numberArg('--messages', 1_000_000);
  const accounts = numberArg('--accounts', 100);
  const concurrency = numberArg('--concurrency', 4);
  const requests = numberArg('--requests', 200);
  const bench = await startBenchService(store);
  try {
    const t0 = performance.now();
    const ids: number[] = [];
    for (let a = 1; a <= accounts; a++) {
      await bench.admin('create-account', `bench${a}`, '--password', 'bench-password', '--credits', '10');
      const row = await bench.service.store.db
        .selectFrom('accounts')
        .select('id')
        .where('username', '=', `bench${a}`)
        .executeTakeFirstOrThrow();
      ids.push(Number(row.id));
    }
    const now = Date.now();
    await fill(bench, ids, Math.ceil(total / accounts), now - 60_000);
    const fillMs = Math.round(performance.now() - t0);
    await bench.admin('create-operator', 'bench-operator', '--password', 'bench-operator-password');
    const cookie = await signIn(bench.httpsUrl, 'bench-operator', 'bench-operator-password');

    const day = (d: number) => new Date(now - d * DAY).toISOString().slice(0, 10);
    const pages: Record<string, string> = {
      home: '/admin',
      messages: '/admin/messages',
      account: '/admin/messages?account=bench37',
      carrier: '/admin/messages?carrier=partner',
      delivered: '/admin/messages?status=delivered',
      failed: '/admin/messages?status=failed',
      pending: '/admin/messages?status=pending',
      phonePart: '/admin/messages?phone=4567',
      oneDay: `/admin/messages?from=${day(10)}&to=${day(10)}`,
      week: `/admin/messages?from=${day(14)}&to=${day(8)}`,
      accountFailed: '/admin/messages?account=bench37&status=failed',
      carrierOldDay: `/admin/messages?carrier=hot&from=${day(25)}&to=${day(25)}`,
      accountPhone: '/admin/messages?account=bench37&phone=4567',
    };
    const pageMs: Record<string, PageFigures> = {};
    for (const [name, path] of Object.entries(pages))
      pageMs[name] = await timePage(`${bench.httpsUrl}${path}`, cookie, concurrency, requests);
    // The next page of the unfiltered log, from the "older" link of the first.
    const first = await request(`${bench.httpsUrl}/admin/messages`, { dispatcher: insecure, headers: { cookie } });
    const older = /href="(\/admin\/messages\?before=[^"]+)"/.exec(await first.body.text())?.[1].replace(/&amp;/g, '&');
    if (older) pageMs.olderPage = await timePage(`${bench.httpsUrl}${older}`, cookie, concurrency, requests);
    const worst = Math.max(...Object.values(pageMs).map((p) => p.p95));
    console.log(
      JSON.stringify({
        bench: 'console-admin',
        store,
        messages: total,
        accounts,
        fillMs,
        concurrency,
        requestsPerPage: requests,
        pageMs,
        worstP95Ms: worst,
        targetP95Ms: 150,
        date: new Date().toISOString(),
      }),
    );
  } finally {
    await bench.close();
  }
}
