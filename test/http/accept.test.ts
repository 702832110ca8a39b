// Replies in the encoding the client's Accept header prefers (RFC 9110 q-values, then order), over real HTTP on
// every store: a Node client posting XML with axios's default Accept reads JSON; Accept: application/xml on a
// JSON request gets XML; no Accept, */*, or a header naming neither keeps the request's encoding; errors alike.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { replyEncoding } from '../../src/http/accept.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';

const AXIOS_DEFAULT = 'application/json, text/plain, */*';

describe('replyEncoding', () => {
  it('follows an explicit preference by q-value, then by order, and the request otherwise', () => {
    assert.equal(replyEncoding(AXIOS_DEFAULT, 'xml'), 'json');
    assert.equal(replyEncoding('application/xml', 'json'), 'xml');
    assert.equal(replyEncoding('text/xml', 'json'), 'xml');
    assert.equal(replyEncoding(undefined, 'xml'), 'xml');
    assert.equal(replyEncoding('', 'json'), 'json');
    assert.equal(replyEncoding('*/*', 'xml'), 'xml');
    assert.equal(replyEncoding('text/html, text/plain', 'json'), 'json');
    assert.equal(replyEncoding('application/xml;q=0.5, application/json;q=0.9', 'xml'), 'json');
    assert.equal(replyEncoding('application/json;q=0.2, application/xml', 'json'), 'xml');
    assert.equal(replyEncoding('application/xml, application/json', 'json'), 'xml', 'equal q: the first named');
    assert.equal(replyEncoding('application/json;q=0, */*', 'json'), 'xml', 'JSON refused, XML accepted through */*');
    assert.equal(replyEncoding('application/json;q=0', 'json'), 'json', 'nothing acceptable: the request encoding');
    assert.equal(replyEncoding('APPLICATION/JSON ; Q=1', 'xml'), 'json');
  });
});

const targets = await storeTargets();
for (const target of targets) {
  describe(`content negotiation over HTTP (${target.name})`, () => {
    let t: TestService;
    let token: string;

    before(async () => {
      t = await startTestService(target);
      token = (await t.account('negotiator')).token;
    });
    after(() => t.close());

    const xmlBalance = '<balance><user><username>negotiator</username></user></balance>';
    const jsonBalance = JSON.stringify({ balance: { user: { username: 'negotiator' } } });

    it("answers an XML request carrying axios's default Accept in JSON, with Vary: Accept", async () => {
      const res = await t.post(xmlBalance, {
        token,
        contentType: 'application/xml',
        headers: { accept: AXIOS_DEFAULT },
      });
      assert.match(res.contentType, /^application\/json/);
      assert.equal(JSON.parse(res.text).status, 0);
      assert.equal(JSON.parse(res.text).balance, '1000');
    });

    it('answers a JSON request with Accept: application/xml in XML, also on /api/test', async () => {
      for (const dryRun of [false, true]) {
        const res = await t.post(jsonBalance, {
          token,
          contentType: 'application/json',
          headers: { accept: 'application/xml' },
          dryRun,
        });
        assert.match(res.contentType, /^application\/xml/);
        assert.match(res.text, /^<\?xml version="1.0" encoding="UTF-8"\?>\s*<balance><status>0<\/status>/);
      }
    });

    it('keeps the request encoding with no Accept, */*, or a header naming neither', async () => {
      for (const accept of [undefined, '*/*', 'text/html']) {
        const headers: Record<string, string> = accept ? { accept } : {};
        const xml = await t.post(xmlBalance, { token, contentType: 'application/xml', headers });
        assert.match(xml.contentType, /^application\/xml/, `XML with Accept ${accept}`);
        const json = await t.post(jsonBalance, { token, contentType: 'application/json', headers });
        assert.match(json.contentType, /^application\/json/, `JSON with Accept ${accept}`);
      }
    });

    it('answers errors in the preferred encoding too: an unparseable body (1), an unknown root (997), no token (3)', async () => {
      const broken = await t.post('<balance><user>', {
        token,
        contentType: 'application/xml',
        headers: { accept: AXIOS_DEFAULT },
      });
      assert.match(broken.contentType, /^application\/json/);
      assert.equal(JSON.parse(broken.text).status, 1);
      const unknown = await t.post('{"nothing":{}}', {
        token,
        contentType: 'application/json',
        headers: { accept: 'application/xml' },
      });
      assert.match(unknown.text, /<status>997<\/status>/);
      const anonymous = await t.post(xmlBalance, {
        contentType: 'application/xml',
        headers: { accept: 'application/json' },
      });
      assert.equal(JSON.parse(anonymous.text).status, 3);
    });
  });
}
