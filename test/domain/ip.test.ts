// The IP allowlist's address logic: IPv4-mapped IPv6 addresses count as IPv4 (a dual-stack listener reports
// IPv4 callers as ::ffff:a.b.c.d), CIDRs are canonical, and anything that is not an address matches nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressAllowed, normalizeAddress, parseCidr } from '../../src/domain/ip.ts';

describe('IP allowlist addresses', () => {
  it('normalises IPv4-mapped IPv6 to IPv4 and keeps other addresses', () => {
    assert.equal(normalizeAddress('::ffff:127.0.0.1')?.toString(), '127.0.0.1');
    assert.equal(normalizeAddress('::FFFF:10.1.2.3')?.toString(), '10.1.2.3');
    assert.equal(normalizeAddress('::1')?.toString(), '::1');
    assert.equal(normalizeAddress('2001:db8:0:0::1')?.toString(), '2001:db8::1');
    assert.equal(normalizeAddress('192.0.2.7')?.toString(), '192.0.2.7');
    // Only dotted quads: no `10.1` (10.0.0.1 to inet_aton), hex or leading-zero (octal) forms.
    for (const bad of ['', 'localhost', '300.1.1.1', '1.2.3', '0x7f.0.0.1', '010.1.1.1', '::ffff:', '10.0.0.0/8']) {
      assert.equal(normalizeAddress(bad), null, bad);
    }
  });

  it('parses addresses and CIDRs into canonical CIDRs; mapped ranges become IPv4 ranges', () => {
    assert.equal(parseCidr('127.0.0.1'), '127.0.0.1/32');
    assert.equal(parseCidr(' 10.0.0.0/8 '), '10.0.0.0/8');
    assert.equal(parseCidr('::1'), '::1/128');
    assert.equal(parseCidr('2001:db8::/32'), '2001:db8::/32');
    assert.equal(parseCidr('::ffff:127.0.0.1'), '127.0.0.1/32');
    assert.equal(parseCidr('::ffff:10.0.0.0/104'), '10.0.0.0/8');
    for (const bad of ['', 'nope', '10.0.0.0/33', '::/129', '1.2.3.4/x', '10.1/16', '10.1'])
      assert.equal(parseCidr(bad), null, bad);
  });

  it('matches IPv4 callers, mapped or not, against IPv4 entries, and IPv6 callers against IPv6 entries only', () => {
    const v4 = [parseCidr('127.0.0.1')!, parseCidr('10.0.0.0/8')!];
    assert.ok(addressAllowed('127.0.0.1', v4));
    assert.ok(addressAllowed('::ffff:127.0.0.1', v4));
    assert.ok(addressAllowed('::ffff:10.200.3.4', v4));
    assert.ok(!addressAllowed('127.0.0.2', v4));
    assert.ok(!addressAllowed('::1', v4), '::1 is not 127.0.0.1');
    assert.ok(!addressAllowed('::ffff:11.0.0.1', v4));
    const v6 = [parseCidr('::1')!, parseCidr('2001:db8::/32')!];
    assert.ok(addressAllowed('::1', v6));
    assert.ok(addressAllowed('2001:db8:1::5', v6));
    assert.ok(!addressAllowed('127.0.0.1', v6));
    assert.ok(!addressAllowed('::ffff:127.0.0.1', v6));
    assert.ok(
      addressAllowed('::ffff:127.0.0.1', [parseCidr('::ffff:127.0.0.1')!]),
      'a mapped entry admits the IPv4 caller',
    );
    assert.ok(!addressAllowed('not-an-ip', ['0.0.0.0/0']));
    assert.ok(!addressAllowed('127.0.0.1', []));
  });
});
