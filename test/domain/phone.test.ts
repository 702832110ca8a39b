import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { isIsraeliMobile, maskPhone, normalizePhone, toNational } from '../../src/domain/phone.ts';

const domestic = { allowInternational: false };
const anywhere = { allowInternational: true };

describe('normalizePhone: Israeli mobiles', () => {
  const forms = [
    '0501234567',
    '501234567',
    '972501234567',
    '+972501234567',
    '00972501234567',
    '050-123-4567',
    '050 123 4567',
    ' 050-1234567 ',
    '+972-50-123-4567',
    '+972 050 123 4567', // trunk 0 kept after the country code
    '\u200e050-1234567\u200f', // bidi marks pasted from a Hebrew UI
  ];
  for (const input of forms) {
    it(`accepts ${JSON.stringify(input)} as 972501234567`, () => {
      const expected = { ok: true, e164: '972501234567', international: false, type: 'mobile' };
      assert.deepEqual(normalizePhone(input, domestic), expected);
      assert.deepEqual(normalizePhone(input, anywhere), expected);
    });
  }

  it('accepts every 05X prefix by shape, including ranges libphonenumber calls unallocated', () => {
    for (const prefix of ['50', '51', '52', '53', '54', '55', '56', '58', '59']) {
      const result = normalizePhone(`0${prefix}1234567`, domestic);
      assert.deepEqual(result, { ok: true, e164: `972${prefix}1234567`, international: false, type: 'mobile' }, prefix);
    }
    // The reason for the shape rule: the library rejects the canonical example number.
    assert.equal(parsePhoneNumberFromString('+972501234567')?.isValid(), false);
  });

  it('accepts every 5 + 8 digit number, a superset of the mobiles libphonenumber accepts (random sample)', () => {
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    let libValid = 0;
    for (let i = 0; i < 3000; i++) {
      const nsn = `5${String(next() % 10 ** 8).padStart(8, '0')}`;
      const lib = parsePhoneNumberFromString(`+972${nsn}`);
      const ours = normalizePhone(`0${nsn}`, domestic);
      assert.deepEqual(ours, { ok: true, e164: `972${nsn}`, international: false, type: 'mobile' }, nsn);
      if (lib?.isValid()) {
        libValid++;
        assert.equal(lib.getType(), 'MOBILE', nsn);
      }
    }
    assert.ok(libValid > 1000, `sample hit only ${libValid} library-valid numbers`);
  });

  it('reports mobiles with missing digits as too_short and extra digits as too_long', () => {
    for (const input of ['050123456', '05012345', '50123456', '05', '5', '+97250123456', '9725012']) {
      assert.deepEqual(normalizePhone(input, domestic), { ok: false, reason: 'too_short' }, input);
    }
    for (const input of ['05012345678', '5012345678', '+9725012345678', '97250123456789', '0'.repeat(20)]) {
      assert.deepEqual(normalizePhone(input, domestic), { ok: false, reason: 'too_long' }, input);
    }
  });
});

describe('normalizePhone: Israeli landlines and special numbers', () => {
  const landlines: Array<[string, string]> = [
    ['02-6234567', '97226234567'],
    ['03-1234567', '97231234567'],
    ['04 8123456', '97248123456'],
    ['08-9123456', '97289123456'],
    ['09-7654321', '97297654321'],
    ['(03) 123-4567', '97231234567'],
    ['+972-3-1234567', '97231234567'],
    ['97231234567', '97231234567'],
    ['077-1234567', '972771234567'],
    ['073-2123456', '972732123456'],
  ];
  for (const [input, e164] of landlines) {
    it(`accepts ${input} as landline ${e164}`, () => {
      assert.deepEqual(normalizePhone(input, domestic), { ok: true, e164, international: false, type: 'landline' });
    });
  }

  it('checks landline length and allocation', () => {
    assert.deepEqual(normalizePhone('03-123456', domestic), { ok: false, reason: 'too_short' });
    assert.deepEqual(normalizePhone('03-12345678', domestic), { ok: false, reason: 'too_long' });
    assert.deepEqual(normalizePhone('077-123456', domestic), { ok: false, reason: 'too_short' });
    assert.deepEqual(normalizePhone('072-1234567', domestic), { ok: false, reason: 'invalid' }); // 072-1 unallocated
    assert.deepEqual(normalizePhone('061234567', domestic), { ok: false, reason: 'invalid' }); // no 06 area
  });

  it('keeps 1-800 numbers Israeli (type other), with or without a 0', () => {
    const expected = { ok: true, e164: '9721800123456', international: false, type: 'other' };
    assert.deepEqual(normalizePhone('1-800-123-456', domestic), expected);
    assert.deepEqual(normalizePhone('01800123456', domestic), expected);
  });
});

describe('normalizePhone: international', () => {
  it('refuses foreign numbers unless international sends are allowed', () => {
    for (const input of ['+447911123456', '00447911123456', '447911123456', '+14155552671', '14155552671']) {
      assert.deepEqual(normalizePhone(input, domestic), { ok: false, reason: 'international_not_allowed' }, input);
    }
  });

  it('accepts valid foreign numbers when allowed, with the library type', () => {
    assert.deepEqual(normalizePhone('+44 7911 123456', anywhere), {
      ok: true,
      e164: '447911123456',
      international: true,
      type: 'mobile',
    });
    assert.deepEqual(normalizePhone('00 1 (415) 555-2671', anywhere), {
      ok: true,
      e164: '14155552671',
      international: true,
      type: 'other', // North American numbers do not say whether they are mobile
    });
    assert.deepEqual(normalizePhone('+970599123456', anywhere), {
      ok: true,
      e164: '970599123456',
      international: true,
      type: 'mobile',
    });
    assert.deepEqual(normalizePhone('+44 20 7946 0958', anywhere), {
      ok: true,
      e164: '442079460958',
      international: true,
      type: 'landline',
    });
  });

  it('reports foreign length problems and unknown country codes when allowed', () => {
    assert.deepEqual(normalizePhone('+44791112', anywhere), { ok: false, reason: 'too_short' });
    assert.deepEqual(normalizePhone('+4479111234567', anywhere), { ok: false, reason: 'too_long' });
    assert.deepEqual(normalizePhone('+999123456', anywhere), { ok: false, reason: 'invalid' });
    assert.deepEqual(normalizePhone('+999123456', domestic), { ok: false, reason: 'invalid' });
  });
});

describe('normalizePhone: malformed input', () => {
  it('rejects letters and stray symbols as invalid, and nothing at all as too_short', () => {
    for (const input of ['abc', '050-CALL-NOW', '050#1234567', '*6000', '+972+501234567', '05O1234567']) {
      assert.deepEqual(normalizePhone(input, anywhere), { ok: false, reason: 'invalid' }, input);
    }
    for (const input of ['', '   ', '+', '00', '-']) {
      assert.deepEqual(normalizePhone(input, anywhere), { ok: false, reason: 'too_short' }, JSON.stringify(input));
    }
  });
});

describe('isIsraeliMobile', () => {
  it('is true only for 9725 plus 8 digits', () => {
    assert.equal(isIsraeliMobile('972501234567'), true);
    assert.equal(isIsraeliMobile('+972541234567'), true);
    assert.equal(isIsraeliMobile('97231234567'), false); // landline
    assert.equal(isIsraeliMobile('972771234567'), false); // 077
    assert.equal(isIsraeliMobile('0501234567'), false); // national form, not E.164
    assert.equal(isIsraeliMobile('97250123456'), false);
    assert.equal(isIsraeliMobile('447911123456'), false);
  });

  it('agrees with normalizePhone for everything it accepts', () => {
    for (const input of ['0521234567', '03-1234567', '077-1234567', '1800123456']) {
      const result = normalizePhone(input, domestic);
      assert.ok(result.ok, input);
      assert.equal(isIsraeliMobile(result.e164), result.type === 'mobile', input);
    }
  });
});

describe('toNational', () => {
  it('turns Israeli E.164 numbers into the local 0 form', () => {
    assert.equal(toNational('972501234567'), '0501234567');
    assert.equal(toNational('+972501234567'), '0501234567');
    assert.equal(toNational('97231234567'), '031234567');
    assert.equal(toNational('972771234567'), '0771234567');
  });

  it('leaves numbers without a national form in our service as digits', () => {
    assert.equal(toNational('447911123456'), '447911123456');
    assert.equal(toNational('0501234567'), '0501234567');
  });

  it('inverts normalizePhone for local input', () => {
    for (const local of ['0501234567', '0587654321', '031234567', '0771234567']) {
      const result = normalizePhone(local, domestic);
      assert.ok(result.ok, local);
      assert.equal(toNational(result.e164), local);
    }
  });
});

describe('maskPhone', () => {
  it('shows the first digit of the national number without 0 and stars the rest', () => {
    assert.equal(maskPhone('972501234567'), '5********');
    assert.equal(maskPhone('0501234567'), '5********');
    assert.equal(maskPhone('501234567'), '5********');
    assert.equal(maskPhone('+972-50-123-4567'), '5********');
    assert.equal(maskPhone('97231234567'), '3*******');
    assert.equal(maskPhone('031234567'), '3*******');
  });

  it('never reveals more than one digit, whatever the input', () => {
    for (const input of ['972541112233', '0771234567', '447911123456', '14155552671']) {
      const masked = maskPhone(input);
      assert.match(masked, /^\d\*+$/, input);
      assert.equal(masked.replace(/\*/g, '').length, 1, input);
    }
    assert.equal(maskPhone('447911123456'), '4***********');
    assert.equal(maskPhone(''), '');
  });
});
