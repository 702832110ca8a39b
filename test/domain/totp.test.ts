// TOTP against RFC 6238's test vectors (appendix B, SHA-1: the ASCII secret "12345678901234567890").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { base32Decode, base32Encode, newTotpSecret, totpCode, totpMatches } from '../../src/domain/totp.ts';

const SECRET = base32Encode(Buffer.from('12345678901234567890'));

describe('totp', () => {
  it("computes RFC 6238's SHA-1 vectors (last 6 digits)", () => {
    for (const [seconds, code] of [
      [59, '287082'],
      [1111111109, '081804'],
      [1111111111, '050471'],
      [1234567890, '005924'],
      [2000000000, '279037'],
    ] as const) {
      assert.equal(totpCode(SECRET, seconds * 1000), code, String(seconds));
    }
  });

  it('accepts the codes of the next and previous step only, and nothing but six digits', () => {
    const now = 1_800_000_000_000;
    assert.ok(totpMatches(SECRET, totpCode(SECRET, now - 30_000), now));
    assert.ok(totpMatches(SECRET, totpCode(SECRET, now + 30_000), now));
    assert.ok(!totpMatches(SECRET, totpCode(SECRET, now - 90_000), now));
    assert.ok(!totpMatches(SECRET, ' 12345', now));
  });

  it('round-trips base32 and makes 160-bit secrets', () => {
    const s = newTotpSecret();
    assert.equal(base32Decode(s).length, 20);
    assert.equal(base32Encode(base32Decode(s)), s);
  });
});
