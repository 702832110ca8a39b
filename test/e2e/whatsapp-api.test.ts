// 019's WhatsApp endpoints and `sms` with "channel":"whatsapp" over real HTTP on every store: templates synced
// from a Graph API's message_templates, each endpoint's reply in 019's shape with its reasons, the 24-hour window
// refusal and a send inside it, templates with variables (wrong count, not approved, unknown refused before
// anything is charged), the rate card's prices in the ledger, dry-run pricing, WhatsApp one-time codes validated
// by validate_otp with service_type whatsapp, and the SMS fallback written, charged once, when WhatsApp is late.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { whatsappSendingComponent } from '../../src/delivery/whatsapp-sending.ts';
import { unseal } from '../../src/domain/sealed.ts';
import { sealingKey } from '../../src/secret-key.ts';
import { openWindow } from '../../src/store/whatsapp.ts';
import { startGraphTemplatesApi } from '../helpers/graph-templates.ts';
import type { TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { waitFor } from '../helpers/push-receiver.ts';
import { creditLedger, newSender, startSendingService, type Sender } from '../operations/send-helpers.ts';
import { whatsappCarrierArgs } from '../helpers/whatsapp-carrier.ts';

const BUSINESS = '972771234567';
const USER = '972501112233';
const OTHER = '972502223344';

const TEMPLATES = [
  {
    name: 'order_update',
    language: 'he',
    status: 'APPROVED',
    category: 'UTILITY',
    components: [
      { type: 'HEADER', format: 'TEXT', text: 'Order' },
      { type: 'BODY', text: 'Order {{1}} ships on {{2}}' },
      { type: 'FOOTER', text: 'Shop' },
      { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Thanks' }] },
    ],
  },
  {
    name: 'hello',
    language: 'en_US',
    status: 'APPROVED',
    category: 'MARKETING',
    components: [{ type: 'BODY', text: 'Hello from the shop' }],
  },
  {
    name: 'sale',
    language: 'en_US',
    status: 'PENDING',
    category: 'MARKETING',
    components: [{ type: 'BODY', text: 'Sale {{1}}' }],
  },
  {
    name: 'login_code',
    language: 'en_US',
    status: 'APPROVED',
    category: 'AUTHENTICATION',
    components: [{ type: 'BODY', text: '{{1}} is your verification code.' }],
  },
];

/** A Graph API that lists TEMPLATES for business account WABA1 to the bearer token GRAPH-TOKEN. */
const graphApi = () => startGraphTemplatesApi(TEMPLATES, 'GRAPH-TOKEN');

const targets = await storeTargets();
for (const target of targets) {
  describe(`WhatsApp API (${target.name})`, () => {
    let t: TestService;
    let s: Sender;
    let graph: Awaited<ReturnType<typeof graphApi>>;
    let now = Date.UTC(2026, 10, 1, 10);

    const wa = async (path: string, body?: unknown, token = s.token) => {
      const res = await request(`${t.httpUrl}/whatsapp-api/${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      assert.equal(res.statusCode, 200);
      return (await res.body.json()) as Record<string, any>;
    };
    const messageRow = (id: number) =>
      t.service.store.db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

    before(async () => {
      graph = await graphApi();
      const sending = whatsappSendingComponent({ fallbackIntervalMs: 50 });
      t = await startSendingService(target, { clock: () => now, components: [sending] });
      await t.admin(
        ...whatsappCarrierArgs('wa1', {
          business: BUSINESS,
          phoneNumberId: 'PN1',
          wabaId: 'WABA1',
          token: 'GRAPH-TOKEN',
          appSecret: 'app-secret',
          verifyToken: 'verify',
          graphUrl: graph.url,
        }),
      );
      await sending.syncNow();
      s = await newSender(t, 'alice', 100);
      await t.admin('whatsapp-number', 'add', 'alice', BUSINESS);
      // The API sees the new carrier within its coverage refresh (2 s).
      await waitFor(async () => {
        const dry = await s.call(
          'sms',
          { source: BUSINESS, channel: 'whatsapp', destinations: { phone: '0501112233' }, template: { id: 'hello' } },
          { dryRun: true },
        );
        return dry.status !== 5;
      }, 'the WhatsApp carrier is seen by the API');
      await t.admin('whatsapp-price', 'set', 'marketing', '3');
      await t.admin('whatsapp-price', 'set', 'utility', '2');
      await t.admin('whatsapp-price', 'set', 'authentication', '1');
    });
    after(async () => {
      await t.close();
      await graph.close();
    });

    it("lists the business number's templates in 019's shape, every value a string but status", async () => {
      const all = await wa(`get-phone-templates/${BUSINESS}`);
      assert.equal(all.success, true);
      assert.deepEqual(
        all.templates.map((x: any) => [x.templateId, x.status]),
        [
          ['hello', 0],
          ['login_code', 0],
          ['order_update', 0],
          ['sale', 1],
        ],
      );
      const [one] = (await wa(`get-phone-templates/${BUSINESS}/order_update`)).templates;
      assert.equal(one.body, 'Order {{1}} ships on {{2}}');
      assert.deepEqual(
        [one.headerSample, one.footer, one.buttons, one.quickReply1, one.headers],
        ['Order', 'Shop', '3', 'Thanks', '1'],
      );
      for (const [k, v] of Object.entries(one)) assert.equal(typeof v, k === 'status' ? 'number' : 'string', k);
      const foreign = await wa('get-phone-templates/972779999999');
      assert.deepEqual([foreign.success, foreign.ans.reason], [false, 5]);
    });

    it("sends a template with its variables: reason 0, the message id, its category's price in the ledger", async () => {
      const before = await s.balance();
      const r = await wa('send-whatsapp-template', {
        source: BUSINESS,
        destination: USER,
        templateId: 'order_update',
        dynamicFieldsObject: { '1': 'A-17', '2': 'Sunday' },
      });
      assert.equal(r.success, true, JSON.stringify(r));
      assert.deepEqual([r.ans.status, r.ans.reason], ['OK', 0]);
      const row = await messageRow(Number(r.ans.unique));
      assert.equal(row.channel, 'whatsapp');
      assert.equal(row.text, 'Order A-17 ships on Sunday');
      assert.equal(row.source, BUSINESS);
      assert.deepEqual(JSON.parse(row.template as string), {
        name: 'order_update',
        language: 'he',
        parameters: ['A-17', 'Sunday'],
      });
      assert.equal(Number(row.cost_credits), 2);
      assert.equal((await s.balance()).credits, before.credits - 2);
    });

    it('refuses a template before charging anything: wrong variables 11, not approved 10, unknown 9, foreign number 5', async () => {
      const before = await s.balance();
      const send = (extra: Record<string, unknown>) =>
        wa('send-whatsapp-template', { source: BUSINESS, destination: USER, templateId: 'order_update', ...extra });
      assert.equal((await send({ dynamicFieldsObject: { '1': 'only one' } })).ans.reason, 11);
      assert.equal((await send({ dynamicFieldsObject: { '1': 'a', '2': 'line\nbreak' } })).ans.reason, 11);
      assert.equal((await send({ templateId: 'sale', dynamicFieldsObject: { '1': 'x' } })).ans.reason, 10);
      assert.equal((await send({ templateId: 'nope' })).ans.reason, 9);
      const foreign = await send({ source: '972779999999', dynamicFieldsObject: { '1': 'a', '2': 'b' } });
      assert.deepEqual([foreign.success, foreign.ans.status, foreign.ans.reason], [false, 'ERROR', 5]);
      assert.deepEqual(await s.balance(), before);
    });

    it('refuses free text outside the 24-hour window (7 never wrote, 8 closed) and sends it inside, as service', async () => {
      const text = { source: BUSINESS, destination: OTHER, message: 'Thanks for writing' };
      assert.deepEqual([(await wa('send-whatsapp-message', text)).ans.reason], [7]);
      const accountId = await t.accountId('alice');
      await openWindow(t.service.store.db, { accountId, businessNumber: BUSINESS, user: OTHER }, now - 25 * 3600_000);
      assert.equal((await wa('send-whatsapp-message', text)).ans.reason, 8);
      await openWindow(t.service.store.db, { accountId, businessNumber: BUSINESS, user: OTHER }, now - 3600_000);
      const before = await s.balance();
      const ok = await wa('send-whatsapp-message', text);
      assert.deepEqual([ok.success, ok.ans.reason], [true, 0]);
      const row = await messageRow(Number(ok.ans.unique));
      assert.deepEqual([row.text, row.template, Number(row.cost_credits)], ['Thanks for writing', null, 1]);
      assert.equal((await s.balance()).credits, before.credits - 1);
    });

    it('answers a bad token with reason 2 and a body that is not JSON with reason 1', async () => {
      const bad = await wa(
        'send-whatsapp-message',
        { source: BUSINESS, destination: USER, message: 'x' },
        'not-a-token',
      );
      assert.deepEqual([bad.success, bad.ans.reason], [false, 2]);
      const res = await request(`${t.httpUrl}/whatsapp-api/send-whatsapp-message`, {
        method: 'POST',
        headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
        body: '{not json',
      });
      assert.equal(((await res.body.json()) as any).ans.reason, 1);
    });

    it('sms with "channel":"whatsapp": a template to phones priced on /api/test, free text only inside the window', async () => {
      const accountId = await t.accountId('alice');
      await openWindow(t.service.store.db, { accountId, businessNumber: BUSINESS, user: OTHER }, now - 3600_000);
      const before = await s.balance();
      const dry = await s.call(
        'sms',
        {
          source: BUSINESS,
          channel: 'whatsapp',
          destinations: { phone: ['0501112233', '0502223344'] },
          template: { id: 'hello' },
        },
        { dryRun: true },
      );
      assert.deepEqual([dry.status, dry.recipients, dry.credits, dry.campaign_id], [0, 2, 6, 0]);
      assert.deepEqual(await s.balance(), before);
      const text = await s.call('sms', {
        source: BUSINESS,
        channel: 'whatsapp',
        destinations: { phone: ['0501112233', '0502223344'] },
        message: 'Your table is ready',
      });
      assert.equal(text.status, 0, JSON.stringify(text));
      assert.deepEqual(
        [text.recipients, text.credits, text.rejected],
        [1, 1, [{ phone: '972501112233', reason: 'outside_window', status: 7 }]],
      );
      const none = await s.call('sms', {
        source: BUSINESS,
        channel: 'whatsapp',
        destinations: { phone: '0501112233' },
        message: 'x',
      });
      assert.equal(none.status, 7);
    });

    it('sends a WhatsApp one-time code (never in the reply) that validate_otp checks with service_type whatsapp', async () => {
      const r = await wa('send-otp-whatsapp', { phone: '0501112233', language: 2 });
      assert.equal(r.success, true, JSON.stringify(r));
      assert.equal(r.data.status, 0);
      const row = await messageRow(Number(r.ans.unique));
      assert.equal(row.text, '[code] is your verification code.');
      assert.equal(Number(row.cost_credits), 1);
      const code = unseal(sealingKey(t.config), row.sealed as string);
      assert.ok(!JSON.stringify(r).includes(code), 'no code in the reply');
      const validate = (service_type: string, c: string) =>
        s.call('validate_otp', { phone: '0501112233', code: c, service_type });
      assert.equal((await validate('sms', code)).status, 12);
      assert.equal((await validate('whatsapp', code)).status, 0);
    });

    it('sends the SMS fallback from the verified sender when WhatsApp did not deliver in time, charged once', async () => {
      const r = await wa('send-whatsapp-template', {
        source: BUSINESS,
        destination: USER,
        templateId: 'order_update',
        dynamicFieldsObject: { '1': 'B-2', '2': 'Monday' },
        fallback: { channel: 'sms', source: 'Yona', after_seconds: 30 },
      });
      assert.equal(r.success, true, JSON.stringify(r));
      const whatsappId = Number(r.ans.unique);
      const fallback = () =>
        t.service.store.db
          .selectFrom('whatsapp_fallbacks')
          .selectAll()
          .where('message_id', '=', whatsappId)
          .executeTakeFirstOrThrow();
      assert.equal((await fallback()).state, 'pending');
      const ledgerBefore = await creditLedger(t, 'alice');
      const charged = Number((await messageRow(whatsappId)).cost_credits);
      now += 31_000;
      await waitFor(async () => (await fallback()).state === 'sent', 'the fallback is sent');
      const sms = await messageRow(Number((await fallback()).sms_message_id));
      assert.deepEqual(
        [sms.channel, sms.source, sms.phone, sms.text, Number(sms.cost_credits)],
        ['sms', 'Yona', USER, 'Order B-2 ships on Monday', 1],
      );
      const ledgerAfter = await creditLedger(t, 'alice');
      // The WhatsApp message was still queued (no carrier runs here): withdrawn and refunded as its SMS went.
      assert.deepEqual(ledgerAfter.length, ledgerBefore.length + 2);
      const added = [...ledgerAfter];
      for (const amount of ledgerBefore) added.splice(added.indexOf(amount), 1);
      assert.deepEqual(added.sort(), [-1, charged].sort(), 'the SMS charged, the WhatsApp charge given back');
      assert.equal(Number((await messageRow(whatsappId)).status), 104);
      const unverified = await wa('send-whatsapp-template', {
        source: BUSINESS,
        destination: USER,
        templateId: 'hello',
        fallback: { channel: 'sms', source: 'Nobody' },
      });
      assert.deepEqual([unverified.success, unverified.ans.reason], [false, 12]);
    });
  });
}
