// The operator's prices (migration 0052): the international rate card and per-account prices.
import { type AccountPrices, NO_ACCOUNT_PRICES, type RateCard } from '../domain/rate-card.ts';
import { sql } from 'kysely';
import type { Queryable } from './types.ts';
import { inGroupBatch, type GroupBatchKind } from './engine/pg-group-batch.ts';

/** The rate card's row for the default price. */
const DEFAULT_ROW = '*';

/** The international rate card. */
export async function readRateCard(db: Queryable): Promise<RateCard> {
  return rateCardOf(await db.selectFrom('intl_rates').select(['country', 'agorot_per_part']).execute());
}

/** The rate card its rows make. */
function rateCardOf(rows: Array<{ country: string; agorot_per_part: unknown }>): RateCard {
  const countries = new Map<string, number>();
  let defaultAgorot: number | null = null;
  for (const r of rows) {
    if (r.country === DEFAULT_ROW) defaultAgorot = Number(r.agorot_per_part);
    else countries.set(r.country, Number(r.agorot_per_part));
  }
  return { defaultAgorot, countries };
}

/** An account's prices from its row (none: no prices of its own). */
function accountPricesOf(
  row: { domestic_credits_per_part: unknown; intl_agorot_per_part: unknown } | undefined,
): AccountPrices {
  if (!row) return NO_ACCOUNT_PRICES;
  return {
    domesticCredits: row.domestic_credits_per_part == null ? null : Number(row.domestic_credits_per_part),
    intlAgorot: row.intl_agorot_per_part == null ? null : Number(row.intl_agorot_per_part),
  };
}

// Price changes made in this process (what SendPriceCache re-reads on).
let written = 0;

/** Counts the price changes made in this process (set or rolled back alike). */
export function pricesWritten(): number {
  return written;
}

/** Sets the price of a part to `country` ('*' for the default); null removes the row. Answers the price before. */
export async function setIntlRate(
  db: Queryable,
  country: string,
  agorot: number | null,
  now: number,
): Promise<number | null> {
  const before = await db
    .selectFrom('intl_rates')
    .select('agorot_per_part')
    .where('country', '=', country)
    .executeTakeFirst();
  if (agorot === null) await db.deleteFrom('intl_rates').where('country', '=', country).execute();
  else
    await db
      .insertInto('intl_rates')
      .values({ country, agorot_per_part: agorot, updated_at: now })
      .onConflict((oc) => oc.column('country').doUpdateSet({ agorot_per_part: agorot, updated_at: now }))
      .execute();
  written++; // after the write: a send that read the price before it reads it again
  return before ? Number(before.agorot_per_part) : null;
}

/** Sets the default of the rate card (null: back to the configured price). */
export function setDefaultIntlRate(db: Queryable, agorot: number | null, now: number): Promise<number | null> {
  return setIntlRate(db, DEFAULT_ROW, agorot, now);
}

/** An account's own prices (nulls when it has none). */
export async function accountPrices(db: Queryable, accountId: number): Promise<AccountPrices> {
  const row = await db
    .selectFrom('account_prices')
    .select(['domestic_credits_per_part', 'intl_agorot_per_part'])
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return accountPricesOf(row);
}

/** What a send is priced with: the rate card and the account's own prices. */
export interface SendPrices {
  card: RateCard;
  own: AccountPrices;
}

/**
 * The rate card and an account's prices for one send. In a PostgreSQL send group (pg-group-batch.ts) the sends
 * of the group read them together, so the read does not put the group's later look-ups out of step.
 */
export async function sendPrices(db: Queryable, accountId: number): Promise<SendPrices> {
  const batched = inGroupBatch(db, PRICES_IN_GROUP, accountId);
  if (batched) return batched;
  // One statement for both (a send's accept runs about six others): the card's rows, then the account's own.
  const { rows } = await sql<{
    kind: 'card' | 'own';
    country: string;
    agorot_per_part: unknown;
    domestic_credits_per_part: unknown;
    intl_agorot_per_part: unknown;
  }>`
    select 'card' as kind, country, agorot_per_part, null as domestic_credits_per_part, null as intl_agorot_per_part
      from intl_rates
    union all
    select 'own' as kind, null, null, domestic_credits_per_part, intl_agorot_per_part
      from account_prices where account_id = ${accountId}`.execute(db);
  return {
    card: rateCardOf(rows.filter((r) => r.kind === 'card')),
    own: accountPricesOf(rows.find((r) => r.kind === 'own')),
  };
}

const PRICES_IN_GROUP: GroupBatchKind<number, SendPrices> = {
  writes: false,
  async run(db, accountIds) {
    const card = await readRateCard(db);
    const rows = await db
      .selectFrom('account_prices')
      .select(['account_id', 'domestic_credits_per_part', 'intl_agorot_per_part'])
      .where('account_id', 'in', [...new Set(accountIds)])
      .execute();
    const own = new Map(rows.map((r) => [Number(r.account_id), r]));
    return accountIds.map((id) => ({ card, own: accountPricesOf(own.get(id)) }));
  },
};

/** Sets an account's own prices (both null removes its row). */
export async function setAccountPrices(
  db: Queryable,
  accountId: number,
  prices: AccountPrices,
  now: number,
): Promise<void> {
  if (prices.domesticCredits === null && prices.intlAgorot === null) {
    await db.deleteFrom('account_prices').where('account_id', '=', accountId).execute();
    written++;
    return;
  }
  const values = {
    domestic_credits_per_part: prices.domesticCredits,
    intl_agorot_per_part: prices.intlAgorot,
    updated_at: now,
  };
  await db
    .insertInto('account_prices')
    .values({ account_id: accountId, ...values })
    .onConflict((oc) => oc.column('account_id').doUpdateSet(values))
    .execute();
  written++;
}

/** Every account with prices of its own, by username. */
export async function listAccountPrices(db: Queryable): Promise<Array<{ username: string } & AccountPrices>> {
  const rows = await db
    .selectFrom('account_prices as p')
    .innerJoin('accounts as a', 'a.id', 'p.account_id')
    .select(['a.username', 'p.domestic_credits_per_part', 'p.intl_agorot_per_part'])
    .orderBy('a.username')
    .execute();
  return rows.map((r) => ({
    username: r.username,
    domesticCredits: r.domestic_credits_per_part == null ? null : Number(r.domestic_credits_per_part),
    intlAgorot: r.intl_agorot_per_part == null ? null : Number(r.intl_agorot_per_part),
  }));
}

/** The rate card's price for one country ('*': the default), or null. */
export async function intlRate(db: Queryable, country: string): Promise<number | null> {
  const row = await db
    .selectFrom('intl_rates')
    .select('agorot_per_part')
    .where('country', '=', country)
    .executeTakeFirst();
  return row ? Number(row.agorot_per_part) : null;
}

/** An account's own prices by username (undefined for no such account). */
export async function accountPricesByUsername(db: Queryable, username: string): Promise<AccountPrices | undefined> {
  const account = await db.selectFrom('accounts').select('id').where('username', '=', username).executeTakeFirst();
  return account ? accountPrices(db, Number(account.id)) : undefined;
}
