// The self-signed certificate: made once and reused across starts, and made anew when it is about to expire.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { generate } from 'selfsigned';
import { selfSignedCertificate } from '../../src/support/self-signed.ts';

test('a kept certificate is reused until 30 days before it expires, then replaced', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'yona-tls-'));
  try {
    const first = await selfSignedCertificate(dir, 'self-signed');
    const again = await selfSignedCertificate(dir, 'self-signed');
    assert.equal(again.cert, first.cert, 'reused');
    const x509 = new X509Certificate(first.cert);
    assert.ok(x509.checkHost('localhost') && x509.checkIP('127.0.0.1'));
    const soon = await generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      curve: 'P-256',
      notAfterDate: new Date(Date.now() + 10 * 86400e3),
    });
    writeFileSync(join(dir, 'self-signed.crt'), soon.cert);
    writeFileSync(join(dir, 'self-signed.key'), soon.private);
    const renewed = await selfSignedCertificate(dir, 'self-signed');
    assert.notEqual(renewed.cert, soon.cert);
    assert.ok(Date.parse(new X509Certificate(renewed.cert).validTo) > Date.now() + 800 * 86400e3);
    assert.equal(readFileSync(join(dir, 'self-signed.crt'), 'utf8'), renewed.cert, 'the new one is kept');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
