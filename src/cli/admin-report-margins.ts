// `yona admin report margins [--month YYYY-MM] [--credit-price AGOROT] [--json]`: per account, what carriers took
// in the month (YONA_TIME_ZONE's calendar month, by when each message was taken), what the account was charged for
// it, what the carriers charge (their costPerPart x parts) and the margin, with totals. A reseller's sub-accounts
// are listed under it with the group's sum; then the same figures per channel (sms, voice, whatsapp: `channels` in
// --json). The figures are domain/margins.ts's, which /admin/margins shows too. Domestic messages are charged in credits: --credit-price says what one
// credit sells for, in agorot, so that they count as money (0 when not given, and the report says so).
import { parseArgs } from 'node:util';
import type { Config } from '../config.ts';
import { calendarMonth, monthSpan } from '../domain/dates.ts';
import { closesGroup, marginReport, parseCreditPrice, type MarginLine } from '../domain/margins.ts';
import { formatMilliShekels } from '../domain/money.ts';
import type { Store } from '../store/engine/db.ts';
import { trafficBetween, trafficByChannel } from '../store/margins.ts';
import { didYouMean } from './help.ts';
import { parseArgsProblem, UsageError } from './usage-error.ts';

const USAGE = 'yona admin report margins [--month YYYY-MM] [--credit-price AGOROT] [--json]';
const REPORTS = ['margins'];

function fail(message: string): never {
  throw new UsageError(message);
}

function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: { month: { type: 'string' }, 'credit-price': { type: 'string' }, json: { type: 'boolean' } },
    });
  } catch (err) {
    const problem = parseArgsProblem(err);
    const unknown = /^unknown option (--[^\s;]+)$/.exec(problem?.message ?? '')?.[1];
    if (unknown)
      fail(`unknown option ${unknown}${didYouMean(unknown, ['--month', '--credit-price', '--json'])}; usage: ${USAGE}`);
    throw problem ?? err;
  }
}

/** Prints the margins report of one month. */
export async function reportCommand(
  store: Store,
  config: Config,
  args: string[],
  out: (line: string) => void,
): Promise<void> {
  const { values, positionals } = parse(args);
  const [which, extra] = positionals;
  if (which === undefined) fail(`which report? usage: ${USAGE}`);
  if (!REPORTS.includes(which)) fail(`unknown report "${which}"${didYouMean(which, REPORTS)}; usage: ${USAGE}`);
  if (extra !== undefined) fail(`unexpected "${extra}"; usage: ${USAGE}`);
  const timeZone = config.defaultTimeZone;
  const month = values.month ?? calendarMonth(Date.now(), timeZone);
  const span = monthSpan(month, timeZone) ?? fail(`--month must be YYYY-MM, like 2026-11, got "${month}"`);
  const priceText = values['credit-price'];
  const creditMilli =
    priceText === undefined
      ? 0
      : (parseCreditPrice(priceText) ??
        fail(`--credit-price must be agorot with at most three decimals, like 8 or 7.5, got "${priceText}"`));

  const report = marginReport(
    await trafficBetween(store.db, span.start, span.end),
    await trafficByChannel(store.db, span.start, span.end),
    creditMilli,
  );
  const { accounts, resellers: groups, channels, total } = report;
  const credit_price_agorot = creditMilli / 1000;
  if (values.json) {
    out(
      JSON.stringify({
        month,
        time_zone: timeZone,
        credit_price_agorot,
        accounts,
        resellers: groups,
        channels,
        total,
      }),
    );
    return;
  }
  out(
    `margins ${month} (${timeZone}): messages carriers took, by account; money in shekels; ` +
      (priceText === undefined
        ? 'credits valued at 0 (give --credit-price AGOROT)'
        : `one credit at ${credit_price_agorot} agorot`),
  );
  const header = ['account', 'messages', 'parts', 'credits', 'intl', 'charged', 'carrier cost', 'margin'];
  const rows: string[][] = [header];
  const cells = (name: string, l: MarginLine) => [
    name,
    String(l.messages),
    String(l.parts),
    String(l.charged_credits),
    formatMilliShekels(l.charged_international_agorot * 1000),
    formatMilliShekels(Math.round(l.charged_agorot * 1000)),
    formatMilliShekels(Math.round(l.carrier_cost_agorot * 1000)),
    formatMilliShekels(Math.round(l.margin_agorot * 1000)),
  ];
  for (const [i, a] of accounts.entries()) {
    rows.push(cells(a.reseller === null ? a.username : `  ${a.username}`, a));
    const closed = closesGroup(report, i);
    const group = groups.find((g) => g.reseller === closed);
    if (group) rows.push(cells(`  = ${group.reseller} with its sub-accounts`, group));
  }
  rows.push(cells('total', total));
  const byChannel: string[][] = [['channel', ...header.slice(1)], ...channels.map((c) => cells(c.channel, c))];
  const widths = header.map((_, i) => Math.max(...[...rows, ...byChannel].map((r) => r[i].length)));
  const print = (r: string[]) =>
    out(r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  '));
  for (const r of rows) print(r);
  out('');
  out('by channel:');
  for (const r of byChannel) print(r);
  const unpriced = total.unpriced_messages;
  if (unpriced > 0)
    out(`note: ${unpriced} message(s) went through carriers with no costPerPart; their carrier cost counts as 0`);
}
