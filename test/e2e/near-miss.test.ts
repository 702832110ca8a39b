// A misspelled field is refused over HTTP, naming the fix, on every store and in both encodings: `timming` never
// sends a campaign at once, `add_dynamik` never texts "[df1]", `cl.phones` never creates an empty list. Keys far
// from every field are accepted as before, listed by /api/test and logged once per account and key. Every
// operation's documented fields (the spec's, with their aliases) pass the check.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { checkFieldNames, nearMiss, operationShape } from '../../src/operations/near-miss.ts';
import { findOperation, operationNames } from '../../src/operations/index.ts';
import { idempotencyShape } from '../../src/operations/idempotency.ts';
import { startService, type Service } from '../../src/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { startSendingService, xmlField, xmlStatus, newSender, type Sender } from '../operations/send-helpers.ts';
import type { TestService } from '../helpers/service.ts';

const targets = await storeTargets();

/** The documented request fields of every operation (messaging-api.md and compatibility.md), as documents. */
const DOCUMENTED: Record<string, Record<string, unknown>> = JSON.parse(
  readFileSync(join(import.meta.dirname, '../fixtures/fuzz/corpus.json'), 'utf8'),
).documents;

function check(root: string, doc: Record<string, unknown>): string[] {
  const op = findOperation(root);
  assert.ok(op, root);
  return checkFieldNames(root, operationShape(op, idempotencyShape(op)), doc);
}

describe('near-miss field names', () => {
  it('accepts every documented field of every operation, with user.password beside user.username', () => {
    for (const [root, doc] of Object.entries(DOCUMENTED)) {
      const extras = check(root, { user: { username: 'u', password: 'legacy' }, ...doc });
      assert.deepEqual(extras, [], root);
    }
    assert.deepEqual(
      Object.keys(DOCUMENTED).sort(),
      operationNames()
        .filter((n) => n !== 'dlrbyDate')
        .sort(),
    );
    for (const root of ['dlrbyDate', ...operationNames()]) assert.doesNotThrow(() => check(root, { user: {} }), root);
  });

  it('tells near misses from far extras', () => {
    for (const [key, field] of [
      ['timming', 'timing'],
      ['add_dynamik', 'add_dynamic'],
      ['Timing', 'timing'],
      ['campaign-name', 'campaign_name'],
      ['CampaignName', 'campaign_name'],
      ['mesage', 'message'],
      ['soruce', 'source'],
    ])
      assert.ok(nearMiss(key, field), `${key} ~ ${field}`);
    for (const [key, field] of [
      ['tracking', 'timing'],
      ['ref', 'tag'],
      ['t', 'to'],
      ['notes', 'source'],
    ])
      assert.ok(!nearMiss(key, field), `${key} is far from ${field}`);
    assert.deepEqual(check('sms', { source: 'a', message: 'b', tracking_ref: 'x', client: { version: 2 } }), [
      'sms.tracking_ref',
      'sms.client',
    ]);
  });
});

for (const target of targets) {
  describe(`near-miss fields over HTTP (${target.name})`, () => {
    let t: TestService;
    let s: Sender;
    before(async () => {
      t = await startSendingService(target);
      s = await newSender(t, 'typist');
    });
    after(() => t.close());

    const campaigns = async () =>
      Number(
        (
          await t.service.store.db
            .selectFrom('campaigns')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    it('refuses `timming` with status 2 naming `timing`, and sends nothing', async () => {
      const before = await campaigns();
      const reply = await s.sms({ destinations: { phone: '0521234567' }, timming: '01/01/30 10:00' });
      assert.deepEqual([reply.status, reply.message], [2, 'unknown field "timming" in sms; did you mean "timing"?']);
      assert.equal(await campaigns(), before);
      assert.equal((await s.balance()).credits, 1000);
    });

    it('refuses `add_dynamik`, a misspelled tts field, and `cl.phones` in newCL (no list created)', async () => {
      const dyn = await s.sms({ destinations: { cl_id: '1' }, add_dynamik: '1', message: 'NoFlag [df1]' });
      assert.deepEqual(
        [dyn.status, dyn.message],
        [2, 'unknown field "add_dynamik" in sms; did you mean "add_dynamic"?'],
      );
      const tts = await s.sms({ destinations: { phone: '0521234567' }, tts: { type: '4', voise: 'ymFemale' } });
      assert.deepEqual([tts.status, tts.message], [2, 'unknown field "voise" in sms.tts; did you mean "voice"?']);
      const list = await s.call('newCL', { cl: { name: 'friends', phones: { phone: ['0521234567'] } } });
      assert.equal(list.status, 2);
      assert.equal(list.message, 'unknown field "phones" in newCL.cl; did you mean "destinations.destination.phone"?');
      const lists = await t.service.store.db.selectFrom('contact_lists').select('id').execute();
      assert.equal(lists.length, 0);
    });

    it('refuses a near miss in XML too, and accepts XML attributes and text', async () => {
      const xml = `<sms><user><username>typist</username></user><source>Yona</source><mesage>hi</mesage>
        <destinations><phone id="x1">0521234567</phone></destinations></sms>`;
      const res = await t.post(xml, { contentType: 'application/xml', token: s.token });
      assert.equal(xmlStatus(res.text), 2);
      assert.equal(xmlField(res.text, 'message'), 'unknown field "mesage" in sms; did you mean "message"?');
      const ok = xml.replace(/mesage/g, 'message');
      const sent = await t.post(ok, { contentType: 'application/xml', token: s.token, dryRun: true });
      assert.equal(xmlStatus(sent.text), 0, sent.text);
    });

    it('accepts far extras; /api/test lists them, /api answers as before', async () => {
      const doc = { destinations: { phone: { _: '0521234567', extra_attr: 'x' } }, client_version: '7.1' };
      const dry = await s.sms(doc, { dryRun: true });
      assert.equal(dry.status, 0, dry.message);
      assert.deepEqual(dry.unknown_fields, ['sms.destinations.phone.extra_attr', 'sms.client_version']);
      const real = await s.sms(doc);
      assert.equal(real.status, 0, real.message);
      assert.equal(real.unknown_fields, undefined);
    });
  });
}

describe('unknown fields in the log', () => {
  let service: Service;
  let lines: string[];
  let cleanup: () => Promise<void>;
  before(async () => {
    const created = await targets[0].create();
    cleanup = created.cleanup;
    lines = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const config = loadConfig({ ...process.env, YONA_HTTP_PORT: '0', YONA_HTTPS_PORT: '0', ...created.env });
    service = await startService(config, [], { logger: createLogger('info', sink) });
  });
  after(async () => {
    await service.close();
    await cleanup();
  });

  it('logs each unknown key once per account', async () => {
    const { runAdminCommand } = await import('../../src/cli/admin.ts');
    const out: string[] = [];
    await runAdminCommand(
      service.store,
      service.config,
      ['create-account', 'extra1', '--password', 'pw-12345678'],
      (l) => out.push(l),
    );
    await runAdminCommand(service.store, service.config, ['create-token', 'extra1'], (l) => out.push(l));
    const token = out[out.length - 1];
    const call = (doc: Record<string, unknown>) =>
      fetch(`http://127.0.0.1:${service.http.httpPort}/api`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ balance: { user: { username: 'extra1' }, ...doc } }),
      }).then((r) => r.json() as Promise<{ status: number }>);
    for (let i = 0; i < 3; i++) assert.equal((await call({ client_build: String(i) })).status, 0);
    assert.equal((await call({ client_build: '4', widget: 'w' })).status, 0);
    const logged = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'unknown fields ignored');
    assert.deepEqual(
      logged.map((l) => [l.username, l.operation, l.fields]),
      [
        ['extra1', 'balance', ['balance.client_build']],
        ['extra1', 'balance', ['balance.widget']],
      ],
    );
  });
});
