// The wire protocol end to end: both encodings, the leniency rules of compatibility.md, statuses 1 and 997,
// HTTP 200 always, body limit, DTD refusal, metrics, health, HTTPS with TLS >= 1.2 only.
import assert from 'node:assert/strict';
import tls from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { storeTargets } from '../helpers/stores.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const xmlStatus = (text: string) => Number(/<status>(-?\d+)<\/status>/.exec(text)?.[1]);
const xmlField = (text: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(text)?.[1];

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
      const res = await t.post('<?xml version="1.0" encoding="UTF-8"?><balance><user><username>wire</username></user></balance>', {
        token, contentType: 'application/xml',
      });
      assert.equal(res.httpStatus, 200);
      assert.match(res.contentType, /application\/xml/);
      assert.match(res.text, /^<\?xml version="1.0" encoding="UTF-8"\?><balance><status>0<\/status><message>/);
      assert.equal(xmlField(res.text, 'balance'), '250');
      assert.equal(xmlField(res.text, 'interantional_balance'), '12.50');
    });

    it('accepts text/xml, charset parameters, and sniffs bodies with no or unknown content type', async () => {
      const xml = '<balance><user><username>wire</username></user></balance>';
      const json = '{"balance":{"user":{"username":"wire"}}}';
      for (const [body, type, kind] of [
        [xml, 'text/xml; charset=utf-8', 'xml'],
        [json, 'application/json; charset=UTF-8', 'json'],
        [`  \n${xml}`, undefined, 'xml'],
        [json, 'application/x-www-form-urlencoded', 'json'],
        [xml, 'text/plain', 'xml'],
      ] as const) {
        const res = await t.post(body, { token, contentType: type });
        const status = kind === 'xml' ? xmlStatus(res.text) : JSON.parse(res.text).status;
        assert.equal(status, 0, `${type}: ${res.text}`);
      }
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
      const numericString = await t.api('getApiToken', { user: { username: 'wire' }, username: 'wire', action: ['current'] }, { token });
      assert.equal(numericString.status, 0);
    });

    it('answers 1 for bodies that do not parse, always with HTTP 200', async () => {
      for (const [body, type] of [
        ['{"balance": {', 'application/json'],
        ['<balance><user>', 'application/xml'],
        ['<balance>&nope;</balance>', 'application/xml'],
        ['', 'application/json'],
      ]) {
        const res = await t.post(body, { token, contentType: type });
        assert.equal(res.httpStatus, 200);
        const status = type.includes('xml') ? xmlStatus(res.text) : JSON.parse(res.text).status;
        assert.equal(status, 1, `${body}: ${res.text}`);
      }
    });

    it('refuses DOCTYPE and entity declarations with status 1 (no expansion)', async () => {
      const xxe = '<?xml version="1.0"?><!DOCTYPE balance [<!ENTITY x SYSTEM "file:///etc/passwd">]><balance><user><username>&x;</username></user></balance>';
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
      const two = await t.post('{"balance":{"user":{"username":"wire"}},"getApiToken":{}}', { token, contentType: 'application/json' });
      assert.equal(JSON.parse(two.text).status, 997);
      const twoXml = await t.post('<balance/><balance/>', { token, contentType: 'application/xml' });
      assert.equal(xmlStatus(twoXml.text), 997);
      const array = await t.post('[1,2]', { token, contentType: 'application/json' });
      assert.equal(JSON.parse(array.text).status, 997);
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
      const res = await t.post('{"balance":{"user":{"username":"wire"}}}', { token, contentType: 'application/json', https: true });
      assert.equal(JSON.parse(res.text).status, 0);
      const port = t.service.http.httpsPort;
      const handshake = (maxVersion: tls.SecureVersion, minVersion: tls.SecureVersion) =>
        new Promise<string>((resolve, reject) => {
          const socket = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false, maxVersion, minVersion, ciphers: 'DEFAULT@SECLEVEL=0' }, () => {
            const version = socket.getProtocol() ?? '';
            socket.end();
            resolve(version);
          });
          socket.on('error', reject);
        });
      await assert.rejects(handshake('TLSv1.1', 'TLSv1'));
      await assert.rejects(handshake('TLSv1', 'TLSv1'));
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
  });
}
