// `yona admin report margins [--month YYYY-MM] [--credit-price AGOROT] [--json]`: per account, what carriers took
// in the month (YONA_TIME_ZONE's calendar month, by when each message was taken), what the account was charged for
// it, what the carriers charge (their costPerPart x parts) and the margin, with totals. A reseller's sub-accounts
// are listed under it with the group's sum. Domestic messages are charged in credits: --credit-price says what one
// credit sells for, in agorot, so that they count as money (0 when not given, and the report says so).
import { parseArgs } from 'node:util';
import type { Config } from '../config.ts';
import { calendarMonth, monthSpan } from '../domain/dates.ts';
import { formatMilliShekels } from '../domain/money.ts';
import type { Store } from '../store/engine/db.ts';
import { type AccountTraffic, trafficBetween } from '../store/margins.ts';
import { didYouMean } from './help.ts';
import { parseArgsProblem, UsageError } from './usage-error.ts';

const USAGE = 'yona admin report margins [--month YYYY-MM] [--credit-price AGOROT] [--json]';
const REPORTS = ['margins'];

/** One line of the report: an account, a reseller's group, or the total. */
export interface MarginLine {
  messages: number;
  parts: number;
  charged_credits: number;
  charged_international_agorot: number;
  /** The credits at --credit-price plus the international money, agorot. */
  charged_agorot: number;
  carrier_cost_agorot: number;
  margin_agorot: number;
  /** Messages whose carrier has no costPerPart (their carrier cost counts as 0). */
  unpriced_messages: number;
}

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

// Sums in thousandths of an agora, so that prices with fractions of an agora add up exactly.
interface Sums {
  messages: number;
  parts: number;
  credits: number;
  agorot: number;
  costMilli: number;
  unpriced: number;
}

const zero = (): Sums => ({ messages: 0, parts: 0, credits: 0, agorot: 0, costMilli: 0, unpriced: 0 });

function sumsOf(t: AccountTraffic): Sums {
  return {
    messages: t.messages,
    parts: t.parts,
    credits: t.chargedCredits,
    agorot: t.chargedAgorot,
    costMilli: t.carrierCostMilli,
    unpriced: t.unpriced,
  };
}

function plus(a: Sums, b: Sums): Sums {
  return {
    messages: a.messages + b.messages,
    parts: a.parts + b.parts,
    credits: a.credits + b.credits,
    agorot: a.agorot + b.agorot,
    costMilli: a.costMilli + b.costMilli,
    unpriced: a.unpriced + b.unpriced,
  };
}

/** Prints the margins report of one month. */
export async function reportCommand(
  store: Store,
  config: Config,
  args: string[],
  out: (line: string) => void,
): Promise<void> {
  const { values, positionals } = parse(args);
  const [report, extra] = positionals;
  if (report === undefined) fail(`which report? usage: ${USAGE}`);
  if (!REPORTS.includes(report)) fail(`unknown report "${report}"${didYouMean(report, REPORTS)}; usage: ${USAGE}`);
  if (extra !== undefined) fail(`unexpected "${extra}"; usage: ${USAGE}`);
  const timeZone = config.defaultTimeZone;
  const month = values.month ?? calendarMonth(Date.now(), timeZone);
  const span = monthSpan(month, timeZone) ?? fail(`--month must be YYYY-MM, like 2026-11, got "${month}"`);
  const priceText = values['credit-price'];
  if (priceText !== undefined && !/^\d{1,7}(\.\d{1,3})?$/.test(priceText))
    fail(`--credit-price must be agorot with at most three decimals, like 8 or 7.5, got "${priceText}"`);
  const creditMilli = priceText === undefined ? 0 : Math.round(Number(priceText) * 1000);

  const traffic = await trafficBetween(store.db, span.start, span.end);
  const line = (s: Sums): MarginLine => {
    const chargedMilli = s.agorot * 1000 + s.credits * creditMilli;
    return {
      messages: s.messages,
      parts: s.parts,
      charged_credits: s.credits,
      charged_international_agorot: s.agorot,
      charged_agorot: chargedMilli / 1000,
      carrier_cost_agorot: s.costMilli / 1000,
      margin_agorot: (chargedMilli - s.costMilli) / 1000,
      unpriced_messages: s.unpriced,
    };
  };
  // Top-level accounts by name; each reseller followed by its sub-accounts and the group's sum.
  const subsOf = new Map<string, AccountTraffic[]>();
  for (const t of traffic) {
    if (t.reseller === null) continue;
    subsOf.set(t.reseller, [...(subsOf.get(t.reseller) ?? []), t]);
  }
  const byName = (a: AccountTraffic, b: AccountTraffic) => a.username.localeCompare(b.username);
  const top = traffic.filter((t) => t.reseller === null).sort(byName);
  let total = zero();
  const accounts: Array<{ username: string; reseller: string | null } & MarginLine> = [];
  const groups: Array<{ reseller: string; accounts: number } & MarginLine> = [];
  for (const t of top) {
    accounts.push({ username: t.username, reseller: null, ...line(sumsOf(t)) });
    let group = sumsOf(t);
    const subs = (subsOf.get(t.username) ?? []).sort(byName);
    for (const sub of subs) {
      accounts.push({ username: sub.username, reseller: t.username, ...line(sumsOf(sub)) });
      group = plus(group, sumsOf(sub));
    }
    if (subs.length > 0) groups.push({ reseller: t.username, accounts: subs.length + 1, ...line(group) });
    total = plus(total, group);
  }
  const credit_price_agorot = creditMilli / 1000;
  if (values.json) {
    out(
      JSON.stringify({
        month,
        time_zone: timeZone,
        credit_price_agorot,
        accounts,
        resellers: groups,
        total: line(total),
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
  for (const a of accounts) {
    rows.push(cells(a.reseller === null ? a.username : `  ${a.username}`, a));
    const group = groups.find((g) => g.reseller === (a.reseller ?? '') && isLastOf(a, accounts));
    if (group) rows.push(cells(`  = ${group.reseller} with its sub-accounts`, group));
  }
  rows.push(cells('total', line(total)));
  const widths = header.map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows) out(r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  '));
  const unpriced = total.unpriced;
  if (unpriced > 0)
    out(`note: ${unpriced} message(s) went through carriers with no costPerPart; their carrier cost counts as 0`);
}

// Whether a sub-account line is the last of its reseller's (the group's sum follows it).
function isLastOf(a: { username: string; reseller: string | null }, all: Array<{ reseller: string | null }>): boolean {
  if (a.reseller === null) return false;
  const index = all.indexOf(a as (typeof all)[number]);
  return all[index + 1]?.reseller !== a.reseller;
}
