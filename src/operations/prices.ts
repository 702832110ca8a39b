// The operator's prices as internal operations (`yona admin price ...` and the operator console): the
// international rate card per destination country with its default, and an account's own prices. Each answers
// the price before and after.
import { z } from 'zod';
import { ApiError } from '../domain/errors.ts';
import { countryCode, MAX_PART_PRICE } from '../domain/rate-card.ts';
import { statusMessage } from '../domain/status.ts';
import { findAccountByUsername } from '../store/accounts.ts';
import {
  accountPrices,
  accountPricesByUsername,
  intlRate,
  setAccountPrices,
  setDefaultIntlRate,
  setIntlRate,
} from '../store/prices.ts';
import type { OperatorOperation } from './types.ts';

const ok = { status: 0, message: statusMessage(0) } as const;
const price = z.number().int().min(0).max(MAX_PART_PRICE).nullable();

const countryInput = z.object({ country: z.string(), agorot: price });
const change = z.object({ before: z.number().nullable(), after: z.number().nullable() });

/** Sets (or, with null, removes) the price of an international part to one country. */
export const setCountryPrice: OperatorOperation<typeof countryInput, typeof change> = {
  names: ['setCountryPrice'],
  internal: true,
  input: countryInput,
  reply: change,
  audit: {
    subject: (i) => `price ${i.country.toUpperCase()}`,
    state: async (db, i) => ({ agorot: await intlRate(db, i.country.toUpperCase()) }),
  },
  async handler(ctx, input) {
    const country = countryCode(input.country);
    if (!country)
      throw new ApiError(2, `Invalid value for field country: "${input.country}" is not a two-letter country code`);
    const before = await setIntlRate(ctx.db, country, input.agorot, ctx.now);
    return { ...ok, before, after: input.agorot };
  },
};

const defaultInput = z.object({ agorot: price });

/** Sets (or, with null, removes) the rate card's default: the price of a part to a country without its own. */
export const setDefaultPrice: OperatorOperation<typeof defaultInput, typeof change> = {
  names: ['setDefaultPrice'],
  internal: true,
  input: defaultInput,
  reply: change,
  audit: { subject: () => 'price default', state: async (db) => ({ agorot: await intlRate(db, '*') }) },
  async handler(ctx, input) {
    const before = await setDefaultIntlRate(ctx.db, input.agorot, ctx.now);
    return { ...ok, before, after: input.agorot };
  },
};

const accountInput = z.object({ username: z.string(), domestic: price.optional(), international: price.optional() });
const prices = z.object({ domestic: z.number().nullable(), international: z.number().nullable() });
const accountChange = z.object({ before: prices, after: prices });

/** Sets an account's own prices: credits a domestic part, agorot an international part (null: the usual price; absent: unchanged). */
export const setAccountPrice: OperatorOperation<typeof accountInput, typeof accountChange> = {
  names: ['setAccountPrice'],
  internal: true,
  input: accountInput,
  reply: accountChange,
  audit: { subject: (i) => i.username, state: (db, i) => accountPricesByUsername(db, i.username) },
  async handler(ctx, input) {
    const account = await findAccountByUsername(ctx.db, input.username);
    if (!account) throw new ApiError(2, `Invalid value for field username: no account named "${input.username}"`);
    const was = await accountPrices(ctx.db, account.id);
    const now = {
      domesticCredits: input.domestic === undefined ? was.domesticCredits : input.domestic,
      intlAgorot: input.international === undefined ? was.intlAgorot : input.international,
    };
    await setAccountPrices(ctx.db, account.id, now, ctx.now);
    return {
      ...ok,
      before: { domestic: was.domesticCredits, international: was.intlAgorot },
      after: { domestic: now.domesticCredits, international: now.intlAgorot },
    };
  },
};
