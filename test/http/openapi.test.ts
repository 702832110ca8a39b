// GET /openapi.json over HTTP: a valid OpenAPI 3.1 document (checked by an independent validator) that lists
// every root element of the operation table, on both listeners.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Agent, request } from 'undici';
import { operationNames } from '../../src/operations/index.ts';
import { REQUEST_STATUS } from '../../src/domain/status.ts';
import { storeTargets } from '../helpers/stores.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const insecure = new Agent({ connect: { rejectUnauthorized: false } });
type Doc = Record<string, any>;

describe('OpenAPI document', () => {
  let t: TestService;
  let doc: Doc;
  before(async () => {
    t = await startTestService((await storeTargets())[0]);
    const res = await request(`${t.httpUrl}/openapi.json`);
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    doc = (await res.body.json()) as Doc;
  });
  after(() => t.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc);
    assert.equal(validator.version, '3.1');
    assert.deepEqual(result, { valid: true });
  });

  it('is served the same over HTTPS', async () => {
    const res = await request(`${t.httpsUrl}/openapi.json`, { dispatcher: insecure });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(await res.body.json(), doc);
  });

  it('offers every operation of the table as one root element of the JSON body, on /api and /api/test', () => {
    const branches: Doc[] = doc.components.schemas.JsonRequest.oneOf;
    const roots = branches.map((b) => Object.keys(b.properties)[0]);
    assert.deepEqual([...roots].sort(), [...operationNames()].sort());
    for (const b of branches) assert.deepEqual(b.required, [Object.keys(b.properties)[0]]);
    for (const path of ['/api', '/api/test']) {
      const content = doc.paths[path].post.requestBody.content;
      assert.deepEqual(Object.keys(content).sort(), ['application/json', 'application/xml']);
      assert.equal(content['application/json'].schema.$ref, '#/components/schemas/JsonRequest');
    }
  });

  it('documents idempotency keys: the Idempotency-Key header on /api, the idempotency_key field of the four sends', () => {
    const header = doc.paths['/api'].post.parameters.find((p: Doc) => p.name === 'Idempotency-Key');
    assert.equal(header.in, 'header');
    assert.match(header.description, /same key from the same account within 24 hours answers the first reply/);
    const schemas = doc.components.schemas;
    for (const root of ['sms', 'bulk', 'send_otp', 'updateAmountSub'])
      assert.equal(schemas[`${root}Request`].properties.idempotency_key.type, 'string', root);
    assert.equal(schemas.balanceRequest.properties.idempotency_key, undefined);
  });

  it('names each XML root element after its operation', () => {
    const refs: string[] = doc.components.schemas.XmlRequest.oneOf.map((b: Doc) => b.$ref.split('/').pop());
    const names = refs.map((r) => doc.components.schemas[r].xml.name);
    assert.deepEqual(names.sort(), [...operationNames()].sort());
  });

  it('lists every status code with its message: failures in the error reply, successes in the replies of their operations', () => {
    const all = Object.keys(REQUEST_STATUS).map(Number);
    for (const code of all)
      assert.ok(
        doc.info.description.includes(`| ${code} | ${REQUEST_STATUS[code].en} |`),
        `status ${code} not in the table`,
      );
    const failures: Doc[] = doc.components.schemas.ErrorReply.properties.status.oneOf;
    for (const c of failures) assert.equal(c.title, REQUEST_STATUS[c.const].en);
    const successOf = (root: string) =>
      doc.components.schemas[`${root}Reply`].properties.status.oneOf.map((c: Doc) => c.const);
    assert.deepEqual(successOf('balance'), [0]);
    assert.deepEqual(successOf('addNumBL'), [946]);
    assert.deepEqual(successOf('rmNumBL'), [0, 944]);
    assert.deepEqual(
      [...failures.map((c) => c.const), 0, 944, 946].sort((a, b) => a - b),
      all.sort((a, b) => a - b),
    );
  });

  it('describes the push bodies as webhooks: the forms and the WhatsApp feeds as JSON', () => {
    const fields = (type: string, content = 'application/x-www-form-urlencoded') =>
      Object.keys(doc.webhooks[type].post.requestBody.content[content].schema.properties);
    assert.deepEqual(Object.keys(doc.webhooks).sort(), [
      'blacklist',
      'dlr',
      'dlr_whatsapp',
      'incoming_sms',
      'incoming_whatsapp',
    ]);
    assert.deepEqual(fields('incoming_whatsapp', 'application/json'), [
      'hook',
      'channel',
      'unique',
      'phone',
      'dest',
      'name',
      'message',
      'date',
    ]);
    assert.deepEqual(fields('dlr_whatsapp', 'application/json'), [
      'hook',
      'channel',
      'unique',
      'ack',
      'external_id',
      'status',
      'he_message',
      'en_message',
      'error_code',
      'date',
      'phone',
      'shipment_id',
    ]);
    assert.deepEqual(fields('dlr'), [
      'external_id',
      'status',
      'he_message',
      'en_message',
      'date',
      'phone',
      'operaor',
      'operator',
      'shipment_id',
    ]);
    assert.deepEqual(fields('incoming_sms'), ['phone', 'dest', 'message', 'date']);
    assert.deepEqual(fields('blacklist'), ['dest', 'message', 'date']);
  });

  it("lists 019's WhatsApp endpoints, each answering over HTTP in the documented shape", async () => {
    const paths = Object.keys(doc.paths).filter((p) => p.startsWith('/whatsapp-api/'));
    assert.deepEqual(paths.sort(), [
      '/whatsapp-api/get-phone-templates/{phone}',
      '/whatsapp-api/get-phone-templates/{phone}/{templateId}',
      '/whatsapp-api/send-otp-whatsapp',
      '/whatsapp-api/send-whatsapp-message',
      '/whatsapp-api/send-whatsapp-template',
    ]);
    const bodyFields = (path: string) =>
      Object.keys(doc.paths[path].post.requestBody.content['application/json'].schema.properties).sort();
    assert.deepEqual(bodyFields('/whatsapp-api/send-whatsapp-message'), [
      'destination',
      'fallback',
      'idempotency_key',
      'message',
      'source',
    ]);
    assert.deepEqual(bodyFields('/whatsapp-api/send-whatsapp-template'), [
      'destination',
      'dynamicFieldsObject',
      'fallback',
      'idempotency_key',
      'language',
      'source',
      'templateId',
    ]);
    assert.deepEqual(bodyFields('/whatsapp-api/send-otp-whatsapp'), [
      'app_id',
      'fallback',
      'idempotency_key',
      'language',
      'max_tries',
      'phone',
      'source',
    ]);
    const reasons =
      doc.paths['/whatsapp-api/send-whatsapp-message'].post.responses[200].content['application/json'].schema.properties
        .ans.properties.reason.oneOf;
    assert.deepEqual(
      reasons.map((r: Doc) => r.const),
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 99],
    );
    // Each documented path is a route: called without a token it answers 200 in 019's shape with reason 2.
    for (const path of paths) {
      const method = doc.paths[path].post ? 'POST' : 'GET';
      const url = `${t.httpUrl}${path.replace('{phone}', '972771234567').replace('{templateId}', 'hello')}`;
      const res = await request(url, {
        method,
        headers: { 'content-type': 'application/json' },
        body: method === 'POST' ? '{}' : undefined,
      });
      assert.equal(res.statusCode, 200, path);
      const body = (await res.body.json()) as Doc;
      assert.deepEqual([body.success, body.ans.status, body.ans.reason], [false, 'ERROR', 2], path);
      const documented = doc.paths[path][method.toLowerCase()].responses[200].content['application/json'].schema;
      const refusal = documented.oneOf ? documented.oneOf.find((b: Doc) => b.title === 'refused') : documented;
      for (const key of refusal.required) assert.ok(key in body, `${path}: ${key}`);
      for (const key of refusal.properties.ans.required) assert.ok(key in body.ans, `${path}: ans.${key}`);
    }
    const missing = await request(`${t.httpUrl}/whatsapp-api/send-whatsapp-nothing`, { method: 'POST', body: '{}' });
    assert.equal(missing.statusCode, 404, 'an undocumented path is no route');
    await missing.body.dump();
  });

  it('describes the WhatsApp fields of sms: channel, template and fallback', () => {
    const sms = doc.components.schemas.smsRequest.properties;
    assert.deepEqual(sms.channel.enum, ['sms', 'whatsapp']);
    assert.deepEqual(Object.keys(sms.template.properties), ['id', 'language', 'variables']);
    assert.deepEqual(sms.template.required, ['id']);
    assert.deepEqual(Object.keys(sms.fallback.properties), ['channel', 'source', 'after_seconds']);
    assert.deepEqual(sms.fallback.properties.channel.enum, ['sms']);
    assert.deepEqual(
      [sms.fallback.properties.after_seconds.minimum, sms.fallback.properties.after_seconds.maximum],
      [0, 86_400],
    );
    for (const root of ['send_whatsapp_message', 'send_whatsapp_template', 'send_otp_whatsapp'])
      assert.deepEqual(doc.components.schemas[`${root}Request`].properties.fallback, {
        ...sms.fallback,
        description: doc.components.schemas[`${root}Request`].properties.fallback.description,
      });
  });
});
