// Request bodies refused for their size and shape over HTTP on every store (docs/security.md): a body nested deeper
// than 64 levels or holding too many elements answers status 1 before anything walks it (also with an
// Idempotency-Key: never 998, nothing stored); a 14 MB body of 2,000,000 nested XML elements is refused fast, with
// or without a token, and three at once leave /healthz answering; a request without a valid bearer token meets the
// smaller body limit; a misspelled Idempotency-Key header answers 2 naming the header; XML with a second root is
// refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { storeTargets } from '../helpers/stores.ts';
import type { TestService } from '../helpers/service.ts';
import { newSender, sendTableCounts, startSendingService, xmlStatus, type Sender } from '../operations/send-helpers.ts';

const targets = await storeTargets();

/** `{"sms":{...,"extra":[[[...1...]]]}}` with the field nested `depth` arrays deep. */
function deepJsonSms(username: string, depth: number): string {
  const nested = `${'['.repeat(depth)}1${']'.repeat(depth)}`;
  return `{"sms":{"user":{"username":"${username}"},"source":"Yona","message":"deep","destinations":{"phone":"0521234567"},"extra":${nested}}}`;
}

/** 2,000,000 nested elements: 14 MB. */
const NESTED_XML = Buffer.from(`${'<a>'.repeat(2_000_000)}${'</a>'.repeat(2_000_000)}`);

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

for (const target of targets) {
  describe(`request bodies refused for size and shape (${target.name})`, () => {
    let t: TestService;
    let s: Sender;
    const keys = async () => (await t.service.store.db.selectFrom('idempotency_keys').selectAll().execute()).length;
    const healthz = () =>
      timed(async () => {
        const res = await request(`${t.httpUrl}/healthz`);
        await res.body.text();
        return res.statusCode;
      });
    before(async () => {
      t = await startSendingService(target);
      s = await newSender(t, 'shaper');
    });
    after(() => t.close());

    it('answers 1 for a field nested 5,000 arrays deep with an Idempotency-Key (not 998), storing nothing', async () => {
      const before = await sendTableCounts(t);
      for (const [depth, dryRun] of [
        [5000, false],
        [5000, true],
        [4000, false],
        [3000, false],
        [65, false],
      ] as const) {
        const res = await t.post(deepJsonSms('shaper', depth), {
          contentType: 'application/json',
          token: s.token,
          dryRun,
          headers: { 'Idempotency-Key': 'deep-1' },
        });
        const reply = JSON.parse(res.text);
        assert.deepEqual(reply, {
          status: 1,
          message: 'There was a problem parsing your XML/JSON: nested deeper than 64 levels',
        });
      }
      assert.deepEqual(await sendTableCounts(t), before);
      assert.equal(await keys(), 0);
      assert.equal((await s.balance()).credits, 1000);
    });

    it('answers 1 in XML for XML nested too deep, and accepts nesting within the limit', async () => {
      const xml = `<sms><user><username>shaper</username></user>${'<x>'.repeat(5000)}1${'</x>'.repeat(5000)}</sms>`;
      const res = await t.post(xml, {
        contentType: 'application/xml',
        token: s.token,
        headers: { 'Idempotency-Key': 'deep-2' },
      });
      assert.equal(xmlStatus(res.text), 1, res.text);
      assert.match(res.text, /nested deeper than 64 levels/);
      const within = await t.post(deepJsonSms('shaper', 50), {
        contentType: 'application/json',
        token: s.token,
        dryRun: true,
        headers: { 'Idempotency-Key': 'deep-3' },
      });
      assert.equal(JSON.parse(within.text).status, 0, within.text);
    });

    it('answers 1 for a body of more elements, markup or values than the limits, fast', async () => {
      const phones = '<phone>0521234567</phone>'.repeat(50_001);
      const res = await t.post(
        `<sms><user><username>shaper</username></user><source>Yona</source><message>m</message><destinations>${phones}</destinations></sms>`,
        { contentType: 'application/xml', token: s.token },
      );
      assert.equal(xmlStatus(res.text), 1, res.text.slice(0, 300));
      assert.match(res.text, /more than 50000 elements/);
      for (const [xml, problem] of [
        [`<sms><message a="${'x'.repeat(2_000_000)}">m</message></sms>`, 'characters of tags, comments and processing'],
        [`<sms><!--${'x'.repeat(2_000_000)}--></sms>`, 'characters of tags, comments and processing'],
        [`<sms><message>${'&amp;'.repeat(50_001)}</message></sms>`, 'elements, attributes and entity references'],
        [`<sms><message id="${'<n>'.repeat(100_000)}">m</message></sms>`, 'a `&lt;` in an attribute value'],
      ]) {
        const { value, ms } = await timed(() => t.post(xml, { contentType: 'application/xml', token: s.token }));
        assert.equal(xmlStatus(value.text), 1, value.text);
        assert.ok(value.text.includes(problem), value.text);
        assert.ok(ms < 1000, `refused after ${Math.round(ms)} ms`);
      }
      const items = Array(1_000_001).fill('0').join(',');
      const json = await t.post(`{"balance":{"user":{"username":"shaper"},"list":[${items}]}}`, {
        contentType: 'application/json',
        token: s.token,
      });
      assert.equal(JSON.parse(json.text).status, 1);
      assert.match(JSON.parse(json.text).message, /more than 1000000 values/);
    });

    for (const who of ['no token', 'an unknown token', 'a valid token'] as const) {
      it(`refuses 14 MB of 2,000,000 nested XML elements fast with ${who}, three at once, /healthz answering`, async () => {
        const token = { 'no token': undefined, 'an unknown token': 'not-a-token', 'a valid token': s.token }[who];
        const sends = [0, 1, 2].map(() =>
          timed(() =>
            t.post(NESTED_XML as unknown as string, {
              contentType: 'application/xml',
              token,
            }),
          ),
        );
        const health = await healthz();
        const results = await Promise.all(sends);
        assert.equal(health.value, 200);
        assert.ok(health.ms < 1500, `/healthz took ${Math.round(health.ms)} ms with three bodies in flight`);
        for (const { value, ms } of results) {
          assert.equal(xmlStatus(value.text), 1, value.text);
          assert.match(
            value.text,
            who === 'a valid token' ? /nested deeper than 64 levels/ : /body larger than 1048576 bytes/,
          );
          assert.ok(ms < 4000, `refused after ${Math.round(ms)} ms`);
        }
        console.log(
          `nested XML with ${who} (${target.name}): refused in ${results.map((r) => Math.round(r.ms)).join(', ')} ms; /healthz ${Math.round(health.ms)} ms`,
        );
      });
    }

    it('answers a request without a valid token over the smaller limit with 1 in its encoding, one within it as before', async () => {
      const big = `{"balance":{"user":{"username":"shaper","password":"secret-pw"},"pad":"${'x'.repeat(1_100_000)}"}}`;
      for (const token of [undefined, 'not-a-token']) {
        const res = await t.post(big, { contentType: 'application/json', token });
        assert.deepEqual(JSON.parse(res.text), {
          status: 1,
          message:
            'There was a problem parsing your XML/JSON: body larger than 1048576 bytes (the limit without a valid bearer token)',
        });
      }
      const chunked = await t.post(Readable.from([big.slice(0, 600_000), big.slice(600_000)]) as never, {
        contentType: 'application/json',
      });
      assert.match(JSON.parse(chunked.text).message, /body larger than 1048576 bytes/);
      const xml = await t.post(`<balance>${'<x/>'.repeat(300_000)}</balance>`, { contentType: 'application/xml' });
      assert.equal(xmlStatus(xml.text), 1);
      assert.match(xml.text, /body larger than 1048576 bytes/);
      const withToken = await t.post(big, { contentType: 'application/json', token: s.token });
      assert.equal(JSON.parse(withToken.text).status, 0, withToken.text.slice(0, 200));
      const small = await t.post('{"balance":{"user":{"username":"shaper"}}}', { contentType: 'application/json' });
      assert.equal(JSON.parse(small.text).status, 3);
    });

    it('refuses a misspelled Idempotency-Key header with 2 naming it, and sends nothing', async () => {
      const before = await sendTableCounts(t);
      for (const header of ['Idempotency-Kay', 'Idempotency_Key', 'X-Idempotency-Key', 'idempotencykey']) {
        for (const dryRun of [false, true]) {
          const reply = await s.sms(
            { destinations: { phone: '0521234567' } },
            { headers: { [header]: 'order-7' }, dryRun },
          );
          assert.deepEqual(
            [reply.status, reply.message],
            [2, `unknown header "${header}"; did you mean "Idempotency-Key"?`],
          );
        }
      }
      assert.deepEqual(await sendTableCounts(t), before);
      const plain = await s.call('balance', {}, { headers: { 'X-Request-Id': 'r1', 'Accept-Language': 'en' } });
      assert.equal(plain.status, 0);
    });

    it('refuses XML with a second root after the first', async () => {
      const before = await sendTableCounts(t);
      const first =
        '<sms><user><username>shaper</username></user><source>Yona</source><message>m</message><destinations><phone>0521234567</phone></destinations></sms>';
      for (const second of [first, '<balance/>', '<sms/>', '<x>1</x>', '<?xml version="1.0"?><sms/>']) {
        const res = await t.post(`${first}${second}`, { contentType: 'application/xml', token: s.token });
        assert.equal(xmlStatus(res.text), 997, `${second}: ${res.text}`);
      }
      const trailing = await t.post(`${first}trailing text`, { contentType: 'application/xml', token: s.token });
      assert.equal(xmlStatus(trailing.text), 1, trailing.text);
      assert.deepEqual(await sendTableCounts(t), before);
    });
  });
}
