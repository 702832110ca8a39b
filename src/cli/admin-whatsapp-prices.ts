// `yona admin whatsapp-price set CATEGORY CREDITS | remove CATEGORY | list [--json]`: WhatsApp's rate card, the
// credits one message of each category (marketing, utility, authentication, service) costs an account.
import type { Config } from '../config.ts';
import {
  DEFAULT_WHATSAPP_CREDITS,
  WHATSAPP_CATEGORIES,
  isWhatsappCategory,
  type WhatsappCategory,
} from '../domain/whatsapp-pricing.ts';
import type { Store } from '../store/engine/db.ts';
import { removeWhatsappPrice, setWhatsappPrice, whatsappRateCard } from '../store/whatsapp-prices.ts';
import { didYouMean } from './help.ts';
import { UsageError } from './usage-error.ts';

const USAGE = 'yona admin whatsapp-price set CATEGORY CREDITS | remove CATEGORY | list [--json]';
const MAX_CREDITS = 1_000_000;

function fail(message: string): never {
  throw new UsageError(message);
}

function category(text: string | undefined): WhatsappCategory {
  if (text === undefined) fail(`missing CATEGORY (${WHATSAPP_CATEGORIES.join(', ')}); usage: ${USAGE}`);
  const lower = text.toLowerCase();
  if (!isWhatsappCategory(lower))
    fail(
      `unknown category "${text}"${didYouMean(lower, [...WHATSAPP_CATEGORIES])} (${WHATSAPP_CATEGORIES.join(', ')})`,
    );
  return lower;
}

export async function whatsappPriceCommand(
  store: Store,
  _config: Config,
  args: string[],
  out: (line: string) => void,
): Promise<void> {
  const [action, ...rest] = args;
  if (action === 'set') {
    const [name, credits, extra] = rest;
    if (extra !== undefined) fail(`unexpected argument "${extra}"; usage: ${USAGE}`);
    const c = category(name);
    if (credits === undefined || !/^\d+$/.test(credits) || Number(credits) > MAX_CREDITS)
      fail(`CREDITS must be a whole number from 0 to ${MAX_CREDITS}, got "${credits ?? ''}"`);
    await setWhatsappPrice(store.db, c, Number(credits), Date.now());
    out(`WhatsApp ${c} messages cost ${Number(credits)} credits each`);
    return;
  }
  if (action === 'remove') {
    const c = category(rest[0]);
    const removed = await removeWhatsappPrice(store.db, c);
    out(
      removed
        ? `WhatsApp ${c} messages cost the default again (${DEFAULT_WHATSAPP_CREDITS} credit each)`
        : `no price was set for ${c}`,
    );
    return;
  }
  if (action === 'list' || action === undefined) {
    const card = await whatsappRateCard(store.db);
    if (rest.includes('--json')) {
      out(
        JSON.stringify(
          WHATSAPP_CATEGORIES.map((c) => ({
            category: c,
            credits: card[c] ?? DEFAULT_WHATSAPP_CREDITS,
            set: card[c] !== undefined,
          })),
        ),
      );
      return;
    }
    for (const c of WHATSAPP_CATEGORIES)
      out(`${c.padEnd(15)} ${card[c] ?? DEFAULT_WHATSAPP_CREDITS} credits${card[c] === undefined ? ' (default)' : ''}`);
    return;
  }
  fail(`unknown action "${action}"${didYouMean(action, ['set', 'remove', 'list'])}; usage: ${USAGE}`);
}
