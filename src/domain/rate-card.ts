// What an SMS part costs an account: the operator's international rate card (per destination country, with a
// default) and the account's own prices. Without them a domestic part is one credit and an international part the
// configured YONA_INTL_PRICE_AGOROT.
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

/** The international rate card: agorot a part per country (ISO 3166 alpha-2), and the default for the rest. */
export interface RateCard {
  defaultAgorot: number | null;
  countries: ReadonlyMap<string, number>;
}

/** An account's own prices (null: the usual one). */
export interface AccountPrices {
  domesticCredits: number | null;
  intlAgorot: number | null;
}

export const NO_RATE_CARD: RateCard = { defaultAgorot: null, countries: new Map() };
export const NO_ACCOUNT_PRICES: AccountPrices = { domesticCredits: null, intlAgorot: null };

/** The highest price of one part the operator may set (credits or agorot). */
export const MAX_PART_PRICE = 1_000_000;

/** The country (ISO 3166 alpha-2) of an E.164 number (digits, with or without '+'), when it has one. */
export function destinationCountry(e164: string): string | undefined {
  return parsePhoneNumberFromString(`+${e164.replace(/^\+/, '')}`)?.country;
}

/** A country code as the rate card keys it (upper case), or undefined when it is not two letters. */
export function countryCode(text: string): string | undefined {
  return /^[A-Za-z]{2}$/.test(text) ? text.toUpperCase() : undefined;
}

/** A part price given as text: a whole number from 0 to MAX_PART_PRICE, or undefined. */
export function partPrice(text: string): number | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return n <= MAX_PART_PRICE ? n : undefined;
}

/** Agorot a part to `country` costs: the account's own price, else the country's rate, the card's default, `configured`. */
export function intlPartAgorot(
  card: RateCard,
  account: AccountPrices,
  country: string | undefined,
  configured: number,
): number {
  if (account.intlAgorot !== null) return account.intlAgorot;
  const rate = country === undefined ? undefined : card.countries.get(country);
  return rate ?? card.defaultAgorot ?? configured;
}

/** Credits a domestic part costs: the account's own price, else one. */
export function domesticPartCredits(account: AccountPrices): number {
  return account.domesticCredits ?? 1;
}
