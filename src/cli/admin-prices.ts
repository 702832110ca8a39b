// `yona admin price ...`: the international rate card (agorot a part per destination country, with a default)
// and an account's own prices, through the same operations as the operator console.
//   price list [--json]                        the card, its default and the accounts with prices of their own
//   price set-country CC AGOROT|none           a country's price of a part (none: back to the default)
//   price default AGOROT|none                  the default (none: back to YONA_INTL_PRICE_AGOROT)
//   price account USERNAME [--domestic CREDITS|none] [--international AGOROT|none]
import { parseArgs } from 'node:util';
import type { Config } from '../config.ts';
import { countryCode, MAX_PART_PRICE, partPrice } from '../domain/rate-card.ts';
import { runForOperator } from '../operations/execute.ts';
import { setAccountPrice, setCountryPrice, setDefaultPrice } from '../operations/prices.ts';
import type { Store } from '../store/engine/db.ts';
import { listAccountPrices, readRateCard } from '../store/prices.ts';
import { didYouMean } from './help.ts';
import { operatorApp, worked } from './operator-app.ts';
import { parseArgsProblem, UsageError } from './usage-error.ts';

export const PRICE_USAGE =
  'yona admin price list [--json] | set-country CC AGOROT|none | default AGOROT|none | account USERNAME [--domestic CREDITS|none] [--international AGOROT|none]';
const SUBCOMMANDS = ['list', 'set-country', 'default', 'account'];

function fail(message: string): never {
  throw new UsageError(message);
}

/** A price given on the command line: a whole number, or `none` (null) to remove it. */
function priceArg(text: string | undefined, what: string): number | null {
  if (text === 'none') return null;
  const n = text === undefined ? undefined : partPrice(text);
  if (n === undefined) fail(`${what} must be a whole number from 0 to ${MAX_PART_PRICE} or none, got "${text ?? ''}"`);
  return n;
}

const shown = (n: number | null, unit: string) => (n === null ? '-' : `${n} ${unit}`);

export async function priceCommand(
  store: Store,
  config: Config,
  args: string[],
  out: (line: string) => void,
): Promise<void> {
  const [sub, ...rest] = args;
  const app = operatorApp(store, config);
  switch (sub) {
    case 'list': {
      const json = rest.includes('--json');
      const extra = rest.find((a) => a !== '--json');
      if (extra) fail(`unexpected ${extra}; usage: yona admin price list [--json]`);
      const card = await readRateCard(store.db);
      const accounts = await listAccountPrices(store.db);
      const countries = [...card.countries].sort(([a], [b]) => a.localeCompare(b));
      if (json) {
        out(
          JSON.stringify({
            default_agorot: card.defaultAgorot ?? config.sending.intlPriceAgorot,
            default_from: card.defaultAgorot === null ? 'YONA_INTL_PRICE_AGOROT' : 'rate card',
            countries: Object.fromEntries(countries),
            accounts: accounts.map((a) => ({
              username: a.username,
              domestic_credits: a.domesticCredits,
              international_agorot: a.intlAgorot,
            })),
          }),
        );
        return;
      }
      out(
        card.defaultAgorot === null
          ? `default: ${config.sending.intlPriceAgorot} agorot a part (YONA_INTL_PRICE_AGOROT)`
          : `default: ${card.defaultAgorot} agorot a part`,
      );
      for (const [country, agorot] of countries) out(`${country}: ${agorot} agorot a part`);
      for (const a of accounts)
        out(
          `account ${a.username}: domestic ${shown(a.domesticCredits, 'credits')}, international ${shown(a.intlAgorot, 'agorot')} a part`,
        );
      return;
    }
    case 'set-country': {
      const [cc, value, extra] = rest;
      if (!cc || extra !== undefined) fail('usage: yona admin price set-country CC AGOROT|none');
      const country = countryCode(cc) ?? fail(`CC must be a two-letter country code like US, got "${cc}"`);
      const agorot = priceArg(value, 'AGOROT');
      const r = worked(await runForOperator(app, setCountryPrice, { country, agorot }));
      out(`${country}: ${shown(r.before, 'agorot')} -> ${agorot === null ? 'the default' : `${agorot} agorot`} a part`);
      return;
    }
    case 'default': {
      const [value, extra] = rest;
      if (extra !== undefined) fail('usage: yona admin price default AGOROT|none');
      const agorot = priceArg(value, 'AGOROT');
      const r = worked(await runForOperator(app, setDefaultPrice, { agorot }));
      out(
        `default: ${shown(r.before, 'agorot')} -> ${agorot === null ? `${config.sending.intlPriceAgorot} agorot (YONA_INTL_PRICE_AGOROT)` : `${agorot} agorot`} a part`,
      );
      return;
    }
    case 'account': {
      let parsed: ReturnType<typeof parseAccount>;
      try {
        parsed = parseAccount(rest);
      } catch (err) {
        throw parseArgsProblem(err) ?? err;
      }
      const { values, positionals } = parsed;
      const [username, extra] = positionals;
      if (!username || extra !== undefined) fail(`usage: ${PRICE_USAGE}`);
      const doc: Record<string, unknown> = { username };
      if (values.domestic !== undefined) doc.domestic = priceArg(values.domestic, '--domestic');
      if (values.international !== undefined) doc.international = priceArg(values.international, '--international');
      const r = worked(await runForOperator(app, setAccountPrice, doc));
      out(
        `${username}: domestic ${shown(r.after.domestic, 'credits')}, international ${shown(r.after.international, 'agorot')} a part (was ${shown(r.before.domestic, 'credits')}, ${shown(r.before.international, 'agorot')})`,
      );
      return;
    }
    default:
      fail(
        sub === undefined
          ? `usage: ${PRICE_USAGE}`
          : `unknown subcommand "${sub}"${didYouMean(sub, SUBCOMMANDS)}; usage: ${PRICE_USAGE}`,
      );
  }
}

function parseAccount(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: { domestic: { type: 'string' }, international: { type: 'string' } },
  });
}
