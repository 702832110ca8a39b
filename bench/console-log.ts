// The message log part of `npm run bench -- console`: fills the store up to `--log-messages` (default
// 1,000,000) messages of one account over 30 days (2% failed, 1% blocked), then times /console/messages with
// each filter (p50 and p95 of 20 requests after one cold) and streams the 100,000-message campaign's CSV
// export, printing its rows per second and the process's peak memory above what it used before the export.
import { sql } from 'kysely';
import { Agent, request } from 'undici';
import { analyzeMessages, eightDigitsOf, sentCampaign, seriesOf } from './lib/fill-messages.ts';
import type { BenchService } from './lib/service.ts';

const insecure = new Agent({ connect: { rejectUnauthorized: false } });
const DAY = 24 * 3600_000;

/** Adds `count` messages to the account in campaigns of 50,000, accepted over the 30 days before `end`. */
async function fill(bench: BenchService, accountId: number, count: number, end: number): Promise<void> {
  const { db, dialect } = bench.service.store;
  const per = 50_000;
  for (let from = 0; from < count; from += per) {
    const n = Math.min(per, count - from);
    const first = end - 30 * DAY + Math.floor((from / count) * 30 * DAY);
    const span = Math.floor((n / count) * 30 * DAY);
    const campaign = await sentCampaign(db, {
      accountId,
      name: `Fill ${from / per + 1}`,
      recipients: n,
      at: first,
      finishedAt: first + span,
    });
    const series = seriesOf(dialect, n);
    const k = sql`(i + ${sql.lit(from)})`;
    const digits = eightDigitsOf(dialect, k);
    const at = sql`(${sql.lit(first)} + (i * ${sql.lit(span)}) / ${sql.lit(n)})`;
    await sql`insert into messages (campaign_id, account_id, external_id, phone, source, text, parts, cost_credits,
      cost_agorot, state, status, status_at, attempts, next_attempt_at, lease_until, carrier, error, created_at, submitted_at)
      select ${sql.lit(campaign)}, ${sql.lit(accountId)}, null,
        '9725' || ${digits}, 'Yona', 'Fill message', 1, 1, 0,
        case when ${k} % 97 = 0 then 'skipped' else 'done' end,
        case when ${k} % 97 = 0 then 201 when ${k} % 50 = 0 then 101 else 102 end,
        ${at} + 5000, 1, ${at}, null, 'sim', case when ${k} % 50 = 0 and ${k} % 97 <> 0 then 'simulated refusal' else null end,
        ${at}, ${at}
      from (${series}) as series`.execute(db);
  }
  await analyzeMessages(db, dialect);
}

async function get(url: string, session: string): Promise<{ status: number; body: string }> {
  const res = await request(url, { dispatcher: insecure, headers: { cookie: session } });
  return { status: res.statusCode, body: await res.body.text() };
}

export interface LogFigures {
  logMessages: number;
  logFillMs: number;
  /** Per filter: p50 and p95 of the page's time in ms. */
  logPageMs: Record<string, { p50: number; p95: number; rows: number }>;
  logPageWorstP95Ms: number;
  exportRows: number;
  exportMs: number;
  exportRowsPerSecond: number;
  exportPeakRssAboveBaselineMb: number;
  exportPeakHeapUsedMb: number;
}

export async function benchLog(
  bench: BenchService,
  accountId: number,
  session: string,
  exportCampaignId: number,
  already: number,
): Promise<LogFigures> {
  const argIndex = process.argv.indexOf('--log-messages');
  const total = argIndex >= 0 ? Number(process.argv[argIndex + 1]) : 1_000_000;
  const now = Date.now();
  const t0 = performance.now();
  await fill(bench, accountId, Math.max(0, total - already), now - 2 * 3600_000);
  const logFillMs = Math.round(performance.now() - t0);
  const day = (d: number) => new Date(now - d * DAY).toISOString().slice(0, 10);
  const filters: Record<string, string> = {
    none: '',
    failed: 'status=failed',
    blocked: 'status=blocked',
    status101: 'status=101',
    phonePart: 'phone=4567',
    phoneWhole: `phone=05${String((123_456 * 7919) % 100_000_000).padStart(8, '0')}`,
    campaignFailed: `campaign=${exportCampaignId}&status=failed`,
    oneDay: `from=${day(10)}&to=${day(10)}`,
    oldFailed: `to=${day(25)}&status=failed`,
    smsChannelWeek: `channel=sms&from=${day(7)}`,
  };
  const logPageMs: LogFigures['logPageMs'] = {};
  for (const [name, query] of Object.entries(filters)) {
    const url = `${bench.httpsUrl}/console/messages${query ? `?${query}` : ''}`;
    const cold = await get(url, session);
    if (cold.status !== 200) throw new Error(`log page ${name} answered ${cold.status}`);
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const s = performance.now();
      await get(url, session);
      times.push(performance.now() - s);
    }
    times.sort((a, b) => a - b);
    logPageMs[name] = {
      p50: Math.round(times[9] * 10) / 10,
      p95: Math.round(times[18] * 10) / 10,
      rows: [...cold.body.matchAll(/<tr><td[ >]/g)].length,
    };
  }

  // The export: the 100,000-message campaign, read as it streams (nothing kept), memory sampled every 10 ms.
  global.gc?.();
  const baseline = process.memoryUsage();
  let peakRss = baseline.rss;
  let peakHeap = baseline.heapUsed;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  }, 10);
  const e0 = performance.now();
  const res = await request(`${bench.httpsUrl}/console/messages.csv?campaign=${exportCampaignId}`, {
    dispatcher: insecure,
    headers: { cookie: session },
  });
  let lines = 0;
  for await (const chunk of res.body) for (const byte of chunk as Buffer) if (byte === 10) lines++;
  const exportMs = performance.now() - e0;
  clearInterval(sampler);
  const exportRows = lines - 1;
  const mb = (b: number) => Math.round((b / 1048576) * 10) / 10;
  return {
    logMessages: total,
    logFillMs,
    logPageMs,
    logPageWorstP95Ms: Math.max(...Object.values(logPageMs).map((f) => f.p95)),
    exportRows,
    exportMs: Math.round(exportMs),
    exportRowsPerSecond: Math.round(exportRows / (exportMs / 1000)),
    exportPeakRssAboveBaselineMb: mb(peakRss - baseline.rss),
    exportPeakHeapUsedMb: mb(peakHeap),
  };
}
