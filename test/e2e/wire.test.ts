// The wire protocol end to end: both encodings, content-type sniffing, charsets and byte order marks, the leniency
// rules of compatibility.md, statuses 1 and 997, HTTP 200 always, body limit, DTD refusal, metrics (loopback,
// never through a proxy), health, HTTPS with TLS >= 1.2 only.
import assert from 'node:assert/strict';
import http from 'node:http';
import tls from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { Agent, request } from 'undici';
import { storeTargets } from '../helpers/stores.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const xmlStatus = (text: string) => Number(/<status>(-?\d+)<\/status>/.exec(text)?.[1]);
const xmlField = (text: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(text)?.[1];
const PARSE_PROBLEM = /^There was a problem parsing your XML\/JSON: \S/;
const insecure = new Agent({ connect: { rejectUnauthorized: false } });

/** POSTs raw bytes with exactly the Content-Type given (null: no header at all; '' an empty one). */
function rawPost(
  base: string,
  body: Buffer | string,
  contentType: string | null,
  token: string,
  path = '/api',
): Promise<string> {
  const headers: http.OutgoingHttpHeaders = {
    authorization: `Bearer ${token}`,
    'content-length': Buffer.byteLength(body),
  };
  if (contentType !== null) headers['content-type'] = contentType;
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Hebrew letters and ASCII in windows-1255 / ISO-8859-8 (both put alef..tav at 0xE0..0xFA). */
function hebrewSingleByte(text: string): Buffer {
  return Buffer.from(
    [...text].map((ch) => {
      const code = ch.codePointAt(0)!;
      if (code >= 0x5d0 && code <= 0x5ea) return 0xe0 + (code - 0x5d0);
      assert.ok(code < 0x80, `not encodable: ${ch}`);
      return code;
    }),
  );
}

for (const target of await storeTargets()) {
  describe(`wire protocol (${target.name})`, () => {
    let t: TestService;
    let token: string;
    before(async () => {
      t = await startTestService(target, { env: { YONA_BODY_LIMIT: '65536' } });
      token = (await t.account('wire', ['--credits', '250', '--international', '12.5'])).token;
    });
    after(() => t.close());

    it('answers balance in JSON with the flat shape and both spellings of the international field', async () => {
      const res = await t.post('{"balance":{"user":{"username":"wire"}}}', { token, contentType: 'application/json' });
      assert.equal(res.httpStatus, 200);
      assert.match(res.contentType, /application\/json/);
      const reply = JSON.parse(res.text);
      assert.deepEqual(Object.keys(reply).slice(0, 2), ['status', 'message']);
      assert.equal(reply.status, 0);
      assert.equal(reply.balance, '250');
      assert.equal(reply.international_balance, '12.50');
      assert.equal(reply.interantional_balance, '12.50');
    });

    it('answers XML requests in XML with the root named as the operation', async () => {
      const res = await t.post(
        '<?xml version="1.0" encoding="UTF-8"?><balance><user><username>wire</username></user></balance>',
        {
          token,
          contentType: 'application/xml',
        },
      );
      assert.equal(res.httpStatus, 200);
      assert.match(res.contentType, /application\/xml/);
      assert.match(res.text, /^<\?xml version="1.0" encoding="UTF-8"\?><balance><status>0<\/status><message>/);
      assert.equal(xmlField(res.text, 'balance'), '250');
      assert.equal(xmlField(res.text, 'interantional_balance'), '12.50');
    });

    it('accepts text/xml, charset parameters, and sniffs bodies with no, an empty or an unknown content type', async () => {
      const xml = '<balance><user><username>wire</username></user></balance>';
      const json = '{"balance":{"user":{"username":"wire"}}}';
      for (const [body, type, kind] of [
        [xml, 'text/xml; charset=utf-8', 'xml'],
        [json, 'application/json; charset=UTF-8', 'json'],
        [`  \n${xml}`, null, 'xml'],
        [json, null, 'json'],
        [xml, '', 'xml'],
        [json, '', 'json'],
        [xml, 'xml', 'xml'],
        [json, 'xml', 'json'],
        [json, 'application/x-www-form-urlencoded', 'json'],
        [xml, 'application/x-www-form-urlencoded', 'xml'],
        [xml, 'text/plain', 'xml'],
        [`\n ${json}`, 'text/plain; charset=utf-8', 'json'],
      ] as const) {
        const text = await rawPost(t.httpUrl, body, type, token);
        const status = kind === 'xml' ? xmlStatus(text) : JSON.parse(text).status;
        assert.equal(status, 0, `${JSON.stringify(type)}: ${text}`);
      }
    });

    it('accepts a UTF-8 byte order mark before JSON or XML', async () => {
      const bom = '\uFEFF';
      const json = `${bom}{"balance":{"user":{"username":"wire"}}}`;
      const xml = `${bom}<?xml version="1.0" encoding="UTF-8"?><balance><user><username>wire</username></user></balance>`;
      assert.equal(JSON.parse(await rawPost(t.httpUrl, json, 'application/json', token)).status, 0);
      assert.equal(JSON.parse(await rawPost(t.httpUrl, json, null, token)).status, 0);
      assert.equal(xmlStatus(await rawPost(t.httpUrl, xml, 'application/xml; charset=utf-8', token)), 0);
      assert.equal(xmlStatus(await rawPost(t.httpUrl, xml, null, token)), 0);
    });

    it('decodes the charset the content type names, so Hebrew in windows-1255 or ISO-8859-8 arrives intact', async () => {
      const name = 'לקוחות ותיקים';
      const json = hebrewSingleByte(JSON.stringify({ newCL: { user: { username: 'wire' }, cl: { name } } }));
      const fromJson = JSON.parse(
        await rawPost(t.httpUrl, json, 'application/json; charset=windows-1255', token, '/api/test'),
      );
      assert.equal(fromJson.status, 0, JSON.stringify(fromJson));
      assert.equal(fromJson.lists[0].name, name);
      const xml = hebrewSingleByte(
        `<?xml version="1.0" encoding="ISO-8859-8"?><newCL><user><username>wire</username></user><cl><name>${name}</name></cl></newCL>`,
      );
      const fromXml = await rawPost(t.httpUrl, xml, 'text/xml; charset="iso-8859-8"', token, '/api/test');
      assert.equal(xmlStatus(fromXml), 0, fromXml);
      assert.equal(xmlField(fromXml, 'name'), name);
    });

    it('answers 1 naming an unknown charset', async () => {
      const reply = JSON.parse(
        await rawPost(
          t.httpUrl,
          '{"balance":{"user":{"username":"wire"}}}',
          'application/json; charset=klingon-8',
          token,
        ),
      );
      assert.equal(reply.status, 1);
      assert.match(reply.message, PARSE_PROBLEM);
      assert.match(reply.message, /unknown charset "klingon-8"/);
      const xml = await rawPost(t.httpUrl, '<balance/>', 'application/xml; charset=nope', token);
      assert.equal(xmlStatus(xml), 1);
    });

    it('is lenient with JSON shapes real clients send', async () => {
      const variants = [
        { balance: { user: [{ username: 'wire' }] } },
        { balance: { user: { username: ['wire'] } } },
        { balance: { user: { username: [{ _: 'wire' }] } } },
        { balance: { user: { username: 'wire', password: 'ignored' }, unknown_extra: 1 } },
      ];
      for (const doc of variants) {
        const res = await t.post(JSON.stringify(doc), { token, contentType: 'application/json' });
        assert.equal(JSON.parse(res.text).status, 0, JSON.stringify(doc));
      }
      const arrayWrapped = await t.api(
        'getApiToken',
        { user: { username: 'wire' }, username: 'wire', action: ['current'] },
        { token },
      );
      assert.equal(arrayWrapped.status, 0);
      // A numeric string where a number is expected: read as the number (977, no such campaign), not refused (2).
      const numericString = await t.api('cancel', { user: { username: 'wire' }, campaign_id: '987654' }, { token });
      assert.equal(numericString.status, 977, JSON.stringify(numericString));
      const number = await t.api('cancel', { user: { username: 'wire' }, campaign_id: 987654 }, { token });
      assert.equal(number.status, 977);
      const notNumeric = await t.api('cancel', { user: { username: 'wire' }, campaign_id: 'abc' }, { token });
      assert.equal(notNumeric.status, 2);
    });

    it('answers 1 for bodies that do not parse, always with HTTP 200', async () => {
      for (const [body, type] of [
        ['{"balance": {', 'application/json'],
        ['<balance><user>', 'application/xml'],
        ['<balance>&nope;</balance>', 'application/xml'],
        ['', 'application/json'],
        ['hello world', 'application/xml'],
        ['hello world', 'text/xml; charset=utf-8'],
        ['<?xml version="1.0"?>', 'application/xml'],
        ['<?xml version="1.0" encoding="UTF-8"?>\n<!-- no element -->', 'application/xml'],
      ]) {
        const res = await t.post(body, { token, contentType: type });
        assert.equal(res.httpStatus, 200);
        const reply = type.includes('xml')
          ? { status: xmlStatus(res.text), message: xmlField(res.text, 'message') ?? '' }
          : JSON.parse(res.text);
        assert.equal(reply.status, 1, `${body}: ${res.text}`);
        assert.match(reply.message, PARSE_PROBLEM);
      }
    });

    it('refuses DOCTYPE and entity declarations with status 1 (no expansion)', async () => {
      const xxe =
        '<?xml version="1.0"?><!DOCTYPE balance [<!ENTITY x SYSTEM "file:///etc/passwd">]><balance><user><username>&x;</username></user></balance>';
      const res = await t.post(xxe, { token, contentType: 'application/xml' });
      assert.equal(xmlStatus(res.text), 1);
      assert.ok(!res.text.includes('root:'));
    });

    it('answers 1 for a body over the limit, in the request encoding', async () => {
      const big = JSON.stringify({ balance: { user: { username: 'wire' }, pad: 'x'.repeat(70_000) } });
      const res = await t.post(big, { token, contentType: 'application/json' });
      assert.equal(res.httpStatus, 200);
      const reply = JSON.parse(res.text);
      assert.equal(reply.status, 1);
      assert.match(reply.message, /65536/);
      const bigXml = `<balance><user><username>wire</username></user><pad>${'x'.repeat(70_000)}</pad></balance>`;
      const xmlRes = await t.post(bigXml, { token, contentType: 'application/xml' });
      assert.equal(xmlStatus(xmlRes.text), 1);
    });

    it('answers 997 for unknown or several root elements', async () => {
      const unknown = await t.api('sendFax', { user: { username: 'wire' } }, { token });
      assert.equal(unknown.status, 997);
      const two = await t.post('{"balance":{"user":{"username":"wire"}},"getApiToken":{}}', {
        token,
        contentType: 'application/json',
      });
      assert.equal(JSON.parse(two.text).status, 997);
      const twoXml = await t.post('<balance/><balance/>', { token, contentType: 'application/xml' });
      assert.equal(xmlStatus(twoXml.text), 997);
      const array = await t.post('[1,2]', { token, contentType: 'application/json' });
      assert.equal(JSON.parse(array.text).status, 997);
    });

    it('answers 997 for a JSON body repeating its root key, as XML does for two roots of one name', async () => {
      for (const body of [
        '{"balance":{"user":{"username":"wire"}},"balance":{"user":{"username":"wire"}}}',
        '{"balance":{"user":{"username":"wire"}}, "bal\\u0061nce" : {}}',
        '{"b\\u0061lance":{"user":{"username":"wire"}},"balance":{}}',
      ]) {
        const reply = JSON.parse((await t.post(body, { token, contentType: 'application/json' })).text);
        assert.equal(reply.status, 997, body);
        assert.match(reply.message, /one root element, got 2/);
      }
      // The root's name inside values, strings or nested keys is not a second root.
      const inside =
        '{"balance":{"user":{"username":"wire"},"balance":{"x":"\\"balance\\""},"note":["balance",{"balance":1}]}}';
      assert.equal(JSON.parse((await t.post(inside, { token, contentType: 'application/json' })).text).status, 0);
    });

    it('serves /api/ and /api/test/ as /api and /api/test; other paths answer a plain 404', async () => {
      const body = '{"balance":{"user":{"username":"wire"}}}';
      for (const path of ['/api/', '/api/test/']) {
        const reply = JSON.parse(await rawPost(t.httpUrl, body, 'application/json', token, path));
        assert.equal(reply.status, 0, path);
        assert.equal(reply.balance, '250', path);
      }
      for (const base of [t.httpUrl, t.httpsUrl]) {
        for (const [method, path] of [
          ['POST', '/api/nope'],
          ['POST', '/apix'],
          ['GET', '/api/nope'],
          ['GET', '/no/such/page'],
        ]) {
          const res = await request(`${base}${path}`, {
            method: method as 'GET' | 'POST',
            dispatcher: insecure,
            body: method === 'POST' ? body : undefined,
          });
          assert.equal(res.statusCode, 404, `${method} ${path}`);
          assert.deepEqual(await res.body.json(), { error: 'Not Found' }, `${method} ${path}`);
        }
      }
    });

    it('explains on GET /api and GET / that the API is POST /api with one root element, linking the schema and docs', async () => {
      for (const base of [t.httpUrl, t.httpsUrl])
        for (const path of ['/api', '/']) {
          const res = await request(`${base}${path}`, { dispatcher: insecure });
          assert.equal(res.statusCode, 200, `${base}${path}`);
          const guide = (await res.body.json()) as Record<string, unknown>;
          assert.match(String(guide.api), /^POST \/api with one root element/);
          assert.equal(guide.openapi, '/openapi.json');
          assert.match(String(guide.docs), /docs\/api\/README\.md/);
          // The example it gives is a request that works.
          const example = guide.example as { path: string; body: Record<string, unknown> };
          const reply = JSON.parse(
            await rawPost(
              t.httpUrl,
              JSON.stringify(example.body).replace('alice', 'wire'),
              'application/json',
              token,
              example.path,
            ),
          );
          assert.equal(reply.status, 0);
        }
    });

    it('answers the mail balance too', async () => {
      const reply = await t.api('balance', { user: { username: 'wire' }, type: 'mail' }, { token });
      assert.equal(reply.status, 0);
      assert.equal(reply.balance, '0');
    });

    it('serves /api/test with the same reply shape', async () => {
      const reply = await t.api('balance', { user: { username: 'wire' } }, { token, dryRun: true });
      assert.equal(reply.status, 0);
      assert.equal(reply.balance, '250');
    });

    it('serves the API over HTTPS with TLS 1.2+ and refuses TLS 1.1', async () => {
      const res = await t.post('{"balance":{"user":{"username":"wire"}}}', {
        token,
        contentType: 'application/json',
        https: true,
      });
      assert.equal(JSON.parse(res.text).status, 0);
      const port = t.service.http.httpsPort;
      const handshake = (maxVersion: tls.SecureVersion, minVersion: tls.SecureVersion) =>
        new Promise<string>((resolve, reject) => {
          const socket = tls.connect(
            {
              host: '127.0.0.1',
              port,
              rejectUnauthorized: false,
              maxVersion,
              minVersion,
              ciphers: 'DEFAULT@SECLEVEL=0',
            },
            () => {
              const version = socket.getProtocol() ?? '';
              socket.end();
              resolve(version);
            },
          );
          socket.on('error', reject);
        });
      // The server's protocol_version alert (not a client-side refusal to offer the old version).
      await assert.rejects(handshake('TLSv1.1', 'TLSv1'), { code: 'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION' });
      await assert.rejects(handshake('TLSv1', 'TLSv1'), { code: 'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION' });
      assert.equal(await handshake('TLSv1.2', 'TLSv1.2'), 'TLSv1.2');
      assert.equal(await handshake('TLSv1.3', 'TLSv1.3'), 'TLSv1.3');
    });

    it('serves /healthz, and /metrics only on the loopback HTTP listener', async () => {
      const health = await request(`${t.httpUrl}/healthz`);
      assert.equal(health.statusCode, 200);
      assert.equal(((await health.body.json()) as { status: string }).status, 'ok');
      const metrics = await request(`${t.httpUrl}/metrics`);
      assert.equal(metrics.statusCode, 200);
      assert.match(await metrics.body.text(), /yona_api_requests_total\{operation="balance",status="0"\} \d+/);
      const overHttps = await request(`${t.httpsUrl}/metrics`, {
        dispatcher: new (await import('undici')).Agent({ connect: { rejectUnauthorized: false } }),
      });
      assert.equal(overHttps.statusCode, 404);
      await overHttps.body.dump();
    });

    it("counts the embedded store's transactions, commits and statements on /metrics", async (ctx) => {
      if (target.name !== 'sqlite') return ctx.skip('the embedded store only');
      const counters = async () => {
        const text = await (await request(`${t.httpUrl}/metrics`)).body.text();
        const value = (name: string) => Number(new RegExp(`^${name}\\{node="[^"]*"\\} (\\d+)`, 'm').exec(text)?.[1]);
        return ['transactions', 'commits', 'statements'].map((n) => value(`yona_sqlite_${n}_total`));
      };
      const [transactions, commits, statements] = await counters();
      await t.admin('create-account', 'metricsacct', '--password', 'metrics-pw-1', '--credits', '3');
      const [transactionsAfter, commitsAfter, statementsAfter] = await counters();
      assert.ok(transactionsAfter > transactions, `${transactions} -> ${transactionsAfter} transactions`);
      assert.ok(commitsAfter > commits, `${commits} -> ${commitsAfter} commits`);
      assert.ok(
        statementsAfter - statements >= transactionsAfter - transactions,
        'statements at least one a transaction',
      );
    });

    it('refuses /metrics relayed by a local proxy (X-Forwarded-For or Forwarded), even on loopback', async () => {
      for (const headers of [
        { 'x-forwarded-for': '203.0.113.9' },
        { forwarded: 'for=203.0.113.9;proto=https' },
        { 'x-forwarded-for': '127.0.0.1' },
      ]) {
        const proxied = await request(`${t.httpUrl}/metrics`, { headers });
        assert.equal(proxied.statusCode, 404, JSON.stringify(headers));
        assert.doesNotMatch(await proxied.body.text(), /yona_api_requests_total/);
      }
    });
  });
}
