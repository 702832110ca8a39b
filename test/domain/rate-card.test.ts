import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  countryCode,
  destinationCountry,
  domesticPartCredits,
  intlPartAgorot,
  NO_ACCOUNT_PRICES,
  partPrice,
} from '../../src/domain/rate-card.ts';

describe('rate card', () => {
  const card = { defaultAgorot: 40, countries: new Map([['US', 18]]) };
  it("an international part: the account's price, else the country's, the default, the configured price", () => {
    assert.equal(intlPartAgorot(card, { domesticCredits: null, intlAgorot: 30 }, 'US', 25), 30);
    assert.equal(intlPartAgorot(card, NO_ACCOUNT_PRICES, 'US', 25), 18);
    assert.equal(intlPartAgorot(card, NO_ACCOUNT_PRICES, 'GB', 25), 40);
    assert.equal(intlPartAgorot({ defaultAgorot: null, countries: new Map() }, NO_ACCOUNT_PRICES, 'GB', 25), 25);
  });
  it('a domestic part: one credit unless the account has its own price', () => {
    assert.equal(domesticPartCredits(NO_ACCOUNT_PRICES), 1);
    assert.equal(domesticPartCredits({ domesticCredits: 0, intlAgorot: null }), 0);
  });
  it('the country of a number, and what the operator may type', () => {
    assert.equal(destinationCountry('14155550123'), 'US');
    assert.equal(destinationCountry('+442071234567'), 'GB');
    assert.equal(countryCode('us'), 'US');
    assert.equal(countryCode('USA'), undefined);
    assert.equal(partPrice('12'), 12);
    assert.equal(partPrice('1.5'), undefined);
  });
});
