// Pure push rules: which addresses and URLs are public, the connect-time lookup filter (real resolver on
// `localhost`), retry delays, field builders, form encoding and signatures.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type dns from 'node:dns';
import { describe, it } from 'node:test';
import {
  blacklistFields,
  dlrFields,
  encodeForm,
  incomingFields,
  isIntermediateDlrStatus,
} from '../../src/domain/push-fields.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { retryDelay } from '../../src/domain/push-settings.ts';
import { generatePushSecret, signPush } from '../../src/domain/push-sign.ts';
import { verifyPushSignature } from '../../sdk/src/push.ts';
import { checkPushUrl, nonPublicReason } from '../../src/domain/push-url.ts';
import { prepareTarget, publicOnlyLookup } from '../../src/delivery/push-http.ts';

describe('push addresses and URLs', () => {
  it('accepts public unicast IPv4 and IPv6 only', () => {
    for (const a of [
      '8.8.8.8',
      '1.1.1.1',
      '93.184.216.34',
      '2606:4700:4700::1111',
      '::ffff:8.8.8.8',
      '2002:0808:0808::1',
      '64:ff9b::808:808',
    ]) {
      assert.equal(nonPublicReason(a), null, a);
    }
    const refused: Record<string, RegExp> = {
      '127.0.0.1': /loopback/,
      '10.0.0.1': /private/,
      '172.31.255.255': /private/,
      '192.168.0.1': /private/,
      '169.254.169.254': /link-local/,
      '100.64.0.1': /carrier-grade NAT/,
      '0.0.0.0': /unspecified/,
      '255.255.255.255': /broadcast/,
      '224.0.0.251': /multicast/,
      '192.0.2.1': /reserved or documentation/,
      '198.51.100.7': /documentation/,
      '203.0.113.9': /documentation/,
      '198.18.0.1': /reserved/,
      '240.0.0.1': /reserved/,
      '192.0.0.8': /reserved/,
      '::1': /loopback/,
      '::': /unspecified/,
      'fe80::1': /link-local/,
      'fd12:3456::1': /unique local/,
      'fc00::1': /unique local/,
      'ff02::1': /multicast/,
      '2001:db8::1': /reserved/,
      'fec0::1': /site-local/,
      '100::1': /discard/,
      '2001::1': /Teredo/,
      '::ffff:127.0.0.1': /loopback address 127.0.0.1 \(inside/,
      '::ffff:192.168.1.1': /private/,
      '64:ff9b::7f00:1': /loopback/,
      '2002:7f00:1::1': /loopback/,
      '64:ff9b:1::1': /local-use NAT64/,
      '::7f00:1': /./,
    };
    for (const [a, why] of Object.entries(refused)) assert.match(nonPublicReason(a) ?? 'PUBLIC', why, a);
    assert.match(nonPublicReason('example.com')!, /not an IP address/);
  });

  it('checks URLs: http(s), a host, length, literal addresses and localhost names', () => {
    const ok = (u: string) => checkPushUrl(u, { allowPrivate: false });
    assert.equal(
      (ok('https://hooks.example.com/dlr?x=1') as { url: URL }).url.href,
      'https://hooks.example.com/dlr?x=1',
    );
    assert.equal(ok('https://8.8.8.8/').ok, true);
    assert.equal(ok('http://[2606:4700:4700::1111]:8080/').ok, true);
    for (const u of [
      'http://127.0.0.1/',
      'http://0177.0.0.1/',
      'http://0x7f000001/',
      'http://[::1]/',
      'http://LOCALHOST./',
      'http://a.b.localhost/',
      'http://[::ffff:a9fe:a9fe]/',
    ]) {
      const r = ok(u);
      assert.equal(r.ok, false, u);
    }
    assert.match((ok('ftp://hooks.example.com/') as { reason: string }).reason, /scheme ftp: is not http or https/);
    assert.match((ok('not a url') as { reason: string }).reason, /not an absolute URL/);
    assert.equal(checkPushUrl('http://127.0.0.1:9/x', { allowPrivate: true }).ok, true);
  });

  it('the connect-time lookup keeps public addresses and refuses names that resolve only inside', async () => {
    const lookup = publicOnlyLookup();
    const refused = await new Promise<Error | null>((resolve) =>
      lookup('localhost', { all: true }, (err) => resolve(err)),
    );
    assert.match(refused?.message ?? '', /localhost resolves to a non-public address \(loopback address/);
    assert.equal((refused as NodeJS.ErrnoException).code, 'EPUSHNOTPUBLIC');
    const mixed = ((_h: string, _o: unknown, cb: (e: null, a: dns.LookupAddress[]) => void) =>
      cb(null, [
        { address: '10.0.0.5', family: 4 },
        { address: '93.184.216.34', family: 4 },
      ])) as unknown as typeof dns.lookup;
    const one = await new Promise<unknown[]>((resolve) =>
      publicOnlyLookup(mixed)('x.example', {}, (_e, address, family) => resolve([address, family])),
    );
    assert.deepEqual(one, ['93.184.216.34', 4]);
    const all = await new Promise<unknown>((resolve) =>
      publicOnlyLookup(mixed)('x.example', { all: true }, (_e, address) => resolve(address)),
    );
    assert.deepEqual(all, [{ address: '93.184.216.34', family: 4 }]);
  });

  it('prepares a target: credentials become a Basic header, a private literal is blocked unless allowed', () => {
    const t = prepareTarget('https://user:p%40ss@hooks.example.com:8443/in?a=1', false);
    assert.deepEqual(t, {
      origin: 'https://hooks.example.com:8443',
      path: '/in?a=1',
      authorization: `Basic ${Buffer.from('user:p@ss').toString('base64')}`,
    });
    assert.match(prepareTarget('http://10.0.0.1/x', false).blocked!, /^URL refused: private address 10.0.0.1/);
    assert.equal(prepareTarget('http://10.0.0.1/x', true).blocked, undefined);
  });
});

describe('push settings, fields and signatures', () => {
  it('reads YONA_PUSH_* with defaults and grows the retry delay with jitter up to the cap', () => {
    const d = loadConfig({}).push;
    assert.deepEqual(
      [d.allowPrivate, d.retryBaseMs, d.maxFailures, d.connectTimeoutMs, d.requestTimeoutMs, d.concurrency, d.pollMs],
      [false, 1000, 10, 5000, 10_000, 64, 250],
    );
    assert.throws(() => loadConfig({ YONA_PUSH_MAX_FAILURES: '0' }), ConfigError);
    assert.throws(() => loadConfig({ YONA_PUSH_RETENTION: 'soon' }), /YONA_PUSH_RETENTION/);
    assert.equal(
      retryDelay(d, 1, () => 0),
      1000,
    );
    assert.equal(
      retryDelay(d, 1, () => 0.999),
      1500,
    );
    assert.equal(
      retryDelay(d, 4, () => 0),
      8000,
    );
    assert.equal(
      retryDelay(d, 30, () => 0.5),
      600_000,
    );
  });

  it('builds dlr, incoming_sms and blacklist fields in wire order', () => {
    const date = Date.UTC(2025, 6, 1, 21, 5, 9); // 02/07/25 00:05:09 in Israel (summer time)
    assert.deepEqual(
      dlrFields({
        externalId: null,
        status: 101,
        date,
        phone: '+972501234567',
        operator: null,
        shipmentId: 9,
        timeZone: 'Asia/Jerusalem',
      }),
      {
        external_id: '',
        status: '101',
        he_message: 'לא הגיע ליעד',
        en_message: 'Not delivered',
        date: '02/07/25 00:05:09',
        phone: '972501234567',
        operaor: '',
        operator: '',
        shipment_id: '9',
      },
    );
    assert.deepEqual(
      Object.keys(incomingFields({ phone: '972501234567', dest: '972559990000', message: 'x', date, timeZone: 'UTC' })),
      ['phone', 'dest', 'message', 'date'],
    );
    assert.deepEqual(blacklistFields({ dest: '972501234567', date, timeZone: 'UTC' }), {
      dest: '972501234567',
      message: 'המספר הוסר מרשימת התפוצה',
      date: '01/07/25 21:05:09',
    });
    assert.deepEqual(
      [isIntermediateDlrStatus('-1'), isIntermediateDlrStatus(102), isIntermediateDlrStatus(2)],
      [true, false, false],
    );
    assert.equal(encodeForm({ a: 'x y&z', b: 'שלום' }), 'a=x+y%26z&b=%D7%A9%D7%9C%D7%95%D7%9D');
  });

  it('signs timestamp.body with HMAC-SHA256 and verifies within the tolerance', () => {
    const secret = generatePushSecret();
    assert.match(secret, /^whsec_[\w-]{43}$/);
    const sig = signPush(secret, 1700000000, 'a=1');
    assert.equal(sig, `v1=${createHmac('sha256', secret).update('1700000000.a=1').digest('hex')}`);
    const headers = (timestamp: string | undefined) => ({ 'x-yona-timestamp': timestamp, 'x-yona-signature': sig });
    const at = (nowSeconds: number) => ({ nowSeconds });
    assert.equal(verifyPushSignature(headers('1700000000'), 'a=1', secret, at(1700000100)), true);
    assert.equal(verifyPushSignature(headers('1700000000'), 'a=1', secret, at(1700000400)), false, 'too old');
    assert.equal(verifyPushSignature(headers('1700000001'), 'a=1', secret, at(1700000000)), false);
    assert.equal(verifyPushSignature(headers(undefined), 'a=1', secret), false);
    assert.equal(
      verifyPushSignature(
        new Headers({ 'X-Yona-Timestamp': '1700000000', 'X-Yona-Signature': sig }),
        Buffer.from('a=1'),
        secret,
        at(1700000000),
      ),
      true,
      'fetch Headers and bytes',
    );
  });
});
