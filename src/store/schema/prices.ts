// Prices (migration 0052): the international rate card and per-account prices.

/** One row of the international rate card: agorot a part to a destination country ('*': the default). */
export interface IntlRateTable {
  /** ISO 3166 alpha-2 code of the destination, or '*' for every country without a row of its own. */
  country: string;
  agorot_per_part: number;
  updated_at: number;
}

/** An account's own prices (null: the usual price). */
export interface AccountPriceTable {
  account_id: number;
  /** Credits a domestic SMS part costs this account. */
  domestic_credits_per_part: number | null;
  /** Agorot an international SMS part costs this account, whatever the country. */
  intl_agorot_per_part: number | null;
  updated_at: number;
}

export interface PricesTables {
  intl_rates: IntlRateTable;
  account_prices: AccountPriceTable;
}
