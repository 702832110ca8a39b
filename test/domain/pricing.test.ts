// What messages cost, against figures written here: a text by its parts (credits at home, agorot abroad, nothing
// when free), a call by its started minutes at 2 credits a minute (one, two and three minutes: calls past one and
// two minutes), and the seconds a call is paid for, which is what the trunk plays at most.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { callCredits, callPrice, paidCallSeconds, smsAgorot, smsCredits } from '../../src/domain/pricing.ts';

describe('pricing: texts', () => {
  it('a home text costs a credit a part and no money', () => {
    assert.deepEqual([smsCredits(1, false, false), smsAgorot(1, false, false, 8)], [1, 0]);
    assert.deepEqual([smsCredits(3, false, false), smsAgorot(3, false, false, 8)], [3, 0]);
  });
  it('an international text costs the price a part in agorot and no credits', () => {
    assert.deepEqual([smsCredits(3, true, false), smsAgorot(3, true, false, 8)], [0, 24]);
  });
  it('a free send (sender verification) costs nothing at home or abroad', () => {
    assert.deepEqual([smsCredits(2, false, true), smsAgorot(2, true, true, 8)], [0, 0]);
  });
});

describe('pricing: calls', () => {
  it('every started minute is charged, at least one', () => {
    const at2 = (seconds: number) => callCredits(seconds, 2);
    assert.deepEqual([at2(1), at2(59.9), at2(60)], [2, 2, 2], 'within the first minute');
    assert.deepEqual([at2(60.1), at2(61), at2(119), at2(120)], [4, 4, 4, 4], 'past one minute');
    assert.deepEqual([at2(120.5), at2(121), at2(150), at2(180)], [6, 6, 6, 6], 'past two minutes');
    assert.equal(callCredits(121, 5), 15);
  });
  it('a call is paid for, and plays at most, its started minutes', () => {
    assert.deepEqual([paidCallSeconds(30), paidCallSeconds(60)], [60, 60]);
    assert.deepEqual([paidCallSeconds(61), paidCallSeconds(119.5)], [120, 120]);
    assert.deepEqual([paidCallSeconds(121), paidCallSeconds(150)], [180, 180]);
  });
  it('a rendered speech of 70 s played once is two minutes; twice (with a second between) three', () => {
    assert.deepEqual(callPrice('ignored', { rate: 0, repeat: 1 }, 2, 70), {
      seconds: 70,
      credits: 4,
      paidSeconds: 120,
    });
    assert.deepEqual(callPrice('ignored', { rate: 0, repeat: 2 }, 2, 70), {
      seconds: 141,
      credits: 6,
      paidSeconds: 180,
    });
  });
  it('without a rendering, 11 characters a second at rate 0: 700 letters are 63.6 s, past one minute', () => {
    const text = 'א'.repeat(700);
    const once = callPrice(text, { rate: 0, repeat: 1 }, 2, undefined);
    assert.equal(once.seconds.toFixed(1), '63.6');
    assert.deepEqual([once.credits, once.paidSeconds], [4, 120]);
    // Twice: 2 x 63.6 + 1 = 128.3 s, past two minutes.
    const twice = callPrice(text, { rate: 0, repeat: 2 }, 2, undefined);
    assert.equal(twice.seconds.toFixed(1), '128.3');
    assert.deepEqual([twice.credits, twice.paidSeconds], [6, 180]);
  });
  it('the rate changes the estimate by 5% a step: 660 letters are 60 s at rate 0, 66.7 s at -2, 54.5 s at +2', () => {
    const text = 'a'.repeat(660);
    assert.deepEqual(callPrice(text, { rate: 0, repeat: 1 }, 2, undefined), {
      seconds: 60,
      credits: 2,
      paidSeconds: 60,
    });
    const slower = callPrice(text, { rate: -2, repeat: 1 }, 2, undefined);
    assert.equal(slower.seconds.toFixed(1), '66.7');
    assert.deepEqual([slower.credits, slower.paidSeconds], [4, 120]);
    const faster = callPrice(text, { rate: 2, repeat: 1 }, 2, undefined);
    assert.deepEqual([faster.seconds.toFixed(1), faster.credits], ['54.5', 2]);
  });
  it('a code of four or more digits is read digit by digit: "1234" is 10 characters of speech', () => {
    // 650 letters and a 4-digit code: 650 + "1, 2, 3, 4" (10) = 660 characters, 60 s; the digits as written would be 59.6 s.
    assert.equal(callPrice(`${'a'.repeat(650)}1234`, { rate: 0, repeat: 1 }, 2, undefined).seconds, 60);
  });
});
