// Operator settings end to end: a dual-stack listener (`::`) where IPv4 callers arrive as ::ffff:a.b.c.d and
// still match IPv4 allowlist entries, YONA_TOKEN_TTL as the lifetime of new tokens (10 once it passed), and
// the operator's certificate (YONA_TLS_CERT / YONA_TLS_KEY) being the one served over HTTPS.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { generate } from 'selfsigned';
import { Agent, request } from 'undici';
import { formatLong } from '../../src/domain/dates.ts';
import { ipv6Available } from '../helpers/ipv6.ts';
import { storeTargets } from '../helpers/stores.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const HOUR = 3_600_000;

const ipv6 = await ipv6Available(); // the dual-stack cases skip with a notice without ::1 (fail under REQUIRE_IPV6=1)

/** POSTs a balance request for `username` to `base` (http or https); returns the parsed reply. */
async function balance(
  base: string,
  token: string,
  username: string,
  dispatcher?: Agent,
): Promise<{ status: number; message: string }> {
  const res = await request(`${base}/api`, {
    method: 'POST',
    dispatcher,
    body: JSON.stringify({ balance: { user: { username } } }),
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  });
  return (await res.body.json()) as { status: number; message: string };
}

for (const target of await storeTargets()) {
  describe(`a dual-stack listener and the IP allowlist (${target.name})`, {
    skip: !ipv6 && 'no IPv6 loopback on this host',
  }, () => {
    let t: TestService;
    const insecure = new Agent({ connect: { rejectUnauthorized: false } });
    before(async () => {
      t = await startTestService(target, { env: { YONA_HTTP_HOST: '::', YONA_HTTPS_HOST: '::' } });
    });
    after(async () => {
      await insecure.close();
      await t.close();
    });

    it('a caller arriving as ::ffff:127.0.0.1 matches the entry 127.0.0.1; ::1 is refused 511 naming it', async () => {
      const { token } = await t.account('dual', ['--allow-ip', '127.0.0.1']);
      for (const [port, scheme] of [
        [t.service.http.httpPort, 'http'],
        [t.service.http.httpsPort, 'https'],
      ] as const) {
        const dispatcher = scheme === 'https' ? insecure : undefined;
        assert.equal((await balance(`${scheme}://127.0.0.1:${port}`, token, 'dual', dispatcher)).status, 0, scheme);
        const v6 = await balance(`${scheme}://[::1]:${port}`, token, 'dual', dispatcher);
        assert.equal(v6.status, 511, scheme);
        assert.match(v6.message, /IP address ::1 is not authorised/);
      }
    });

    it('an entry ::1 admits ::1 only; an IPv4 caller refused is named in IPv4 form', async () => {
      const { token } = await t.account('dual6', ['--allow-ip', '::1']);
      assert.equal((await balance(`http://[::1]:${t.service.http.httpPort}`, token, 'dual6')).status, 0);
      const v4 = await balance(`http://127.0.0.1:${t.service.http.httpPort}`, token, 'dual6');
      assert.equal(v4.status, 511);
      assert.match(v4.message, /IP address 127\.0\.0\.1 is not authorised/);
    });
  });

  describe(`YONA_TOKEN_TTL (${target.name})`, () => {
    let t: TestService;
    let clockOffset = 0;
    before(async () => {
      t = await startTestService(target, { env: { YONA_TOKEN_TTL: '2h' }, clock: () => Date.now() + clockOffset });
    });
    after(() => t.close());

    it('tokens minted by the CLI and by getApiToken new live YONA_TOKEN_TTL, then answer 10; --expires-in overrides it', async () => {
      const { token: fromCli } = await t.account('ttl');
      const longer = (await t.admin('create-token', 'ttl', '--expires-in', '3h')).at(-1)!;
      const before = Date.now();
      const minted = await t.api(
        'getApiToken',
        { user: { username: 'ttl' }, username: 'ttl', action: 'new' },
        { token: fromCli },
      );
      assert.equal(minted.status, 0);
      const spread = new Set([before, Date.now()].map((at) => formatLong(at + 2 * HOUR, 'Asia/Jerusalem')));
      assert.ok(spread.has(minted.expiration_date), `${minted.expiration_date}: two hours out (${[...spread]})`);

      clockOffset = 2 * HOUR - 60_000;
      for (const token of [fromCli, minted.message, longer])
        assert.equal((await balance(t.httpUrl, token, 'ttl')).status, 0);
      clockOffset = 2 * HOUR + 60_000;
      for (const token of [fromCli, minted.message]) assert.equal((await balance(t.httpUrl, token, 'ttl')).status, 10);
      assert.equal((await balance(t.httpUrl, longer, 'ttl')).status, 0);
      clockOffset = 0;
    });
  });
}

describe('the operator certificate (YONA_TLS_CERT / YONA_TLS_KEY)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'yona-operator-tls-'));
  let t: TestService;
  let cert: string;
  before(async () => {
    const pems = await generate([{ name: 'commonName', value: 'yona-operator.test' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      notAfterDate: new Date(Date.now() + 30 * 86400e3),
      extensions: [
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2, value: 'yona-operator.test' },
            { type: 7, ip: '127.0.0.1' },
          ],
        },
      ],
    });
    cert = pems.cert;
    writeFileSync(join(dir, 'operator.crt'), pems.cert);
    writeFileSync(join(dir, 'operator.key'), pems.private);
    const [sqlite] = await storeTargets();
    t = await startTestService(sqlite, {
      env: { YONA_TLS_CERT: join(dir, 'operator.crt'), YONA_TLS_KEY: join(dir, 'operator.key') },
    });
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is the certificate served over HTTPS (a client trusting only it gets through), and none is generated', async () => {
    const served = await new Promise<tls.PeerCertificate>((resolve, reject) => {
      const socket = tls.connect(
        { host: '127.0.0.1', port: t.service.http.httpsPort, rejectUnauthorized: false },
        () => {
          resolve(socket.getPeerCertificate());
          socket.end();
        },
      );
      socket.on('error', reject);
    });
    assert.equal(served.fingerprint256, new X509Certificate(cert).fingerprint256);
    assert.equal(served.subject.CN, 'yona-operator.test');

    const trusting = new Agent({ connect: { ca: cert } });
    try {
      const { token } = await t.account('tls-operator');
      assert.equal((await balance(t.httpsUrl, token, 'tls-operator', trusting)).status, 0);
    } finally {
      await trusting.close();
    }
    assert.ok(!existsSync(join(t.config.dataDir, 'tls', 'self-signed.crt')), 'no self-signed certificate was made');
  });
});
