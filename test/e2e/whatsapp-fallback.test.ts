// WhatsApp's SMS fallback end to end on both stores, against the Cloud API simulator (`yona wa-sim`) and the SMSC
// simulator (`yona smsc-sim`) as processes of their own: the SMS reaches the SMSC from the verified SMS sender with
// the message's text (or the template's text with its variables) when the WhatsApp message fails, when the number
// has no WhatsApp (131026), or when it is not delivered within after_seconds; no SMS when WhatsApp delivers first
// (nor when it fails after delivering, 1001); a WhatsApp delivery that comes after the SMS left is reported too and
// each is charged once; a WhatsApp one-time code falls back the same way and the code sent by SMS validates. A
// WhatsApp message no carrier could take before its wait ran out (its carrier unreachable) is withdrawn: the SMS
// alone reaches the user, and the WhatsApp charge is given back. The money: a failed WhatsApp message is refunded
// exactly its charge, once, however often its failure is posted.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { loadConfig } from '../../src/config.ts';
import { carriersComponent } from '../../src/delivery/carriers.ts';
import { ingressComponent } from '../../src/delivery/ingress.ts';
import { createPusher } from '../../src/delivery/pusher.ts';
import { whatsappSendingComponent } from '../../src/delivery/whatsapp-sending.ts';
import { openWindow } from '../../src/store/whatsapp.ts';
import { eventually, newSender, windowAroundNow, type Sender } from '../delivery/delivery-helpers.ts';
import { startPushReceiver, type PushReceiver } from '../helpers/push-receiver.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { simCarrierArgs, startSmscSimProcess, type SmscSimProcess } from '../helpers/smsc-sim-process.ts';
import { storeTargets } from '../helpers/stores.ts';
import { SIM_APP_SECRET, SIM_TOKEN, startWaSimProcess, type WaSimProcess } from '../helpers/wa-sim-process.ts';
import { whatsappCarrierArgs } from '../helpers/whatsapp-carrier.ts';

const BUSINESS = '972771230500';
/** A business number whose carrier cannot be reached (nothing listens at its Graph address). */
const BUSINESS_DOWN = '972771230501';
const FAST_MS = 60;
const ENV = { YONA_PUSH_ALLOW_PRIVATE: '1', YONA_PUSH_RETRY_BASE_MS: '20', YONA_PUSH_POLL_MS: '20' };

for (const [index, target] of (await storeTargets()).entries()) {
  describe(`WhatsApp's SMS fallback against wa-sim and smsc-sim processes (${target.name})`, () => {
    let wa: WaSimProcess;
    let smsc: SmscSimProcess;
    let t: TestService;
    let s: Sender;
    let accountId: number;
    let dlrHook: PushReceiver;
    let waHook: PushReceiver;
    const carrier = `wa-fb-${target.name}`;
    const carrierDown = `wa-down-${target.name}`;
    // Each store's run has numbers of its own (the scripted suffix stays last).
    const user = (n: number, suffix: string) => `9725${index}${String(n).padStart(3, '0')}${suffix}`;

    const waApi = async (path: string, body: unknown) => {
      const res = await request(`${t.httpUrl}/whatsapp-api/${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.equal(res.statusCode, 200);
      const json = (await res.body.json()) as Record<string, any>;
      assert.equal(json.success, true, JSON.stringify(json));
      return json;
    };
    const message = (id: number) =>
      t.service.store.db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const fallbackOf = (id: number) =>
      t.service.store.db
        .selectFrom('whatsapp_fallbacks')
        .selectAll()
        .where('message_id', '=', id)
        .executeTakeFirstOrThrow();
    const settled = (id: number, state: 'sent' | 'cancelled', ms = 15_000) =>
      eventually(
        async () => {
          const f = await fallbackOf(id);
          if (f.state !== 'pending' && f.state !== state) throw new Error(`fallback of ${id} is ${f.state}`);
          return f.state === state ? f : undefined;
        },
        ms,
        `the fallback of ${id} ${state}`,
      );
    const smsTo = async (phone: string) => (await smsc.messages()).filter((m) => m.destination === phone);
    const smsArrives = (phone: string) =>
      eventually(async () => (await smsTo(phone))[0], 15_000, `an SMS to ${phone} at the SMSC`);
    const reportsOf = async (phone: string) => {
      const reply = await s.call('dlrByDate', windowAroundNow());
      assert.equal(reply.status, 0, JSON.stringify(reply));
      return (reply.transactions as Array<Record<string, string>>).filter((x) => x.phone === phone);
    };
    const ledger = async () =>
      (
        await t.service.store.db
          .selectFrom('ledger_entries')
          .select(['amount', 'reason', 'ref_type', 'ref_id'])
          .where('account_id', '=', accountId)
          .where('currency', '=', 'credits')
          .orderBy('id')
          .execute()
      ).map((e) => ({ amount: Number(e.amount), reason: e.reason, ref: `${e.ref_type}:${e.ref_id}` }));

    before(async () => {
      wa = await startWaSimProcess(['--status-delay', String(FAST_MS), '--retry-base', '100']);
      smsc = await startSmscSimProcess(['--receipt-delay', '20']);
      const first = await startTestService(target);
      await first.admin(
        ...whatsappCarrierArgs(carrier, {
          business: BUSINESS,
          phoneNumberId: BUSINESS,
          wabaId: 'WABA1',
          token: SIM_TOKEN,
          appSecret: SIM_APP_SECRET,
          verifyToken: 'v',
          graphUrl: wa.graphUrl,
        }),
      );
      await first.admin('add-route', 'default', carrier, '--channel', 'whatsapp');
      await first.admin(
        ...whatsappCarrierArgs(carrierDown, {
          business: BUSINESS_DOWN,
          phoneNumberId: BUSINESS_DOWN,
          wabaId: 'WABA2',
          token: SIM_TOKEN,
          appSecret: SIM_APP_SECRET,
          verifyToken: 'v',
          graphUrl: 'http://127.0.0.1:1',
        }),
      );
      await first.admin('add-route', 'default', carrierDown, '--channel', 'whatsapp', '--source', BUSINESS_DOWN);
      await first.admin(...simCarrierArgs('smsc', smsc));
      await first.admin('add-route', 'default', 'smsc');
      // An authentication template taking the code, for one-time codes.
      await wa.control.post('/templates', {
        name: 'login_code',
        language: 'en_US',
        category: 'AUTHENTICATION',
        status: 'APPROVED',
        body: '{{1}} is your verification code.',
      });
      t = await first.restart({
        env: ENV,
        components: [
          carriersComponent({ settings: { pollMs: 20, retryBaseMs: 100 }, config: loadConfig({}) }),
          ingressComponent(),
          whatsappSendingComponent({ fallbackIntervalMs: 50 }),
          createPusher({ config: loadConfig(ENV) }),
        ],
      });
      s = await newSender(t, 'fbacct', 1000);
      accountId = await t.accountId('fbacct');
      await t.admin('whatsapp-number', 'add', 'fbacct', BUSINESS);
      await t.admin('whatsapp-number', 'add', 'fbacct', BUSINESS_DOWN, '--carrier', carrierDown);
      await t.admin('whatsapp-price', 'set', 'utility', '2');
      await t.admin('whatsapp-price', 'set', 'authentication', '3');
      await wa.control.post('/webhook', { url: `${t.httpUrl}/webhooks/whatsapp/${carrier}` });
      dlrHook = await startPushReceiver();
      waHook = await startPushReceiver();
      for (const [type, hook] of [
        ['dlr', dlrHook],
        ['dlr_whatsapp', waHook],
      ] as const)
        assert.equal((await s.call('push_url', { type, url: hook.url })).status, 0);
      // The API sees the WhatsApp carrier within its coverage refresh.
      await eventually(
        async () => {
          const dry = await s.call(
            'sms',
            {
              source: BUSINESS,
              channel: 'whatsapp',
              destinations: { phone: '0521234567' },
              template: { id: 'hello_world' },
            },
            { dryRun: true },
          );
          return dry.status === 0;
        },
        10_000,
        'the WhatsApp carrier seen by the API',
      );
    });
    after(async () => {
      await t?.close();
      await wa?.stop();
      await smsc?.stop();
      await dlrHook?.close();
      await waHook?.close();
    });

    it('no WhatsApp (131026): the template, variables filled, goes by SMS from the verified sender', async () => {
      const phone = user(1, '1026');
      const before = await ledger();
      const r = await waApi('send-whatsapp-template', {
        source: BUSINESS,
        destination: phone,
        templateId: 'order_update',
        dynamicFieldsObject: { '1': 'A-17' },
        fallback: { channel: 'sms', source: 'Yona', after_seconds: 600 },
      });
      const id = Number(r.ans.unique);
      const sms = await smsArrives(phone);
      assert.deepEqual([sms.source, sms.text], ['Yona', 'Your order A-17 is on its way.']);
      const f = await settled(id, 'sent');
      const smsRow = await message(Number(f.sms_message_id));
      assert.deepEqual([smsRow.channel, Number(smsRow.priority)], ['sms', 0]);
      assert.equal((await message(id)).status, 305);
      // The WhatsApp message is given back (it never reached the phone); the SMS costs a text.
      await eventually(async () => (await ledger()).length === before.length + 3);
      assert.deepEqual(
        (await ledger()).slice(before.length).map((e) => [e.amount, e.ref]),
        [
          [-2, `campaign:${(await message(id)).campaign_id}`],
          [2, `message:${id}`],
          [-1, `campaign:${(await message(Number(f.sms_message_id))).campaign_id}`],
        ],
      );
      // Both are reported: the WhatsApp failure and the SMS (its own campaign, on dlr).
      await eventually(async () => {
        const reports = await reportsOf(phone);
        return reports.some((x) => x.channel === 'whatsapp' && x.status === '305') && reports.length === 2;
      });
    });

    it('the main API: sms with "channel":"whatsapp" and a fallback, to a number without WhatsApp, reaches the SMSC', async () => {
      const phone = user(10, '1026');
      const r = await s.call('sms', {
        source: BUSINESS,
        channel: 'whatsapp',
        destinations: { phone: [{ $: { id: 'main-1' }, _: phone }] },
        template: { id: 'order_update', variables: { '1': 'G-7' } },
        fallback: { channel: 'sms', source: 'Yona', after_seconds: 600 },
      });
      assert.equal(r.status, 0, JSON.stringify(r));
      const sms = await smsArrives(phone);
      assert.deepEqual([sms.source, sms.text], ['Yona', 'Your order G-7 is on its way.']);
      // Both reports carry the caller's id of the recipient.
      const reports = await eventually(async () => {
        const list = await reportsOf(phone);
        return list.length === 2 && list.every((x) => x.status !== '-1') ? list : undefined;
      });
      assert.deepEqual(
        reports.map((x) => x.external_id),
        ['main-1', 'main-1'],
      );
    });

    it('a failed WhatsApp text (131047 at the provider) goes by SMS with its text', async () => {
      const phone = user(2, '0002');
      // Yona saw the user write (its window is open), the provider did not: the text fails there with 131047.
      await openWindow(t.service.store.db, { accountId, businessNumber: BUSINESS, user: phone }, Date.now());
      const r = await waApi('send-whatsapp-message', {
        source: BUSINESS,
        destination: phone,
        message: 'Your table is ready',
        fallback: { channel: 'sms', source: 'Yona', after_seconds: 600 },
      });
      const sms = await smsArrives(phone);
      assert.deepEqual([sms.source, sms.text], ['Yona', 'Your table is ready']);
      await settled(Number(r.ans.unique), 'sent');
      assert.equal((await message(Number(r.ans.unique))).status, 306);
    });

    it('delivered in time: no SMS; failed after delivered (1001): no SMS either, and no refund', async () => {
      const ok = user(3, '0003');
      const late = user(4, '1001');
      const before = await ledger();
      const ids: number[] = [];
      for (const phone of [ok, late]) {
        const r = await s.call('sms', {
          source: BUSINESS,
          channel: 'whatsapp',
          destinations: { phone: [phone] },
          template: { id: 'order_update', variables: { '1': 'B-2' } },
          fallback: { channel: 'sms', source: 'Yona', after_seconds: 5 },
        });
        assert.equal(r.status, 0, JSON.stringify(r));
        const [row] = await t.service.store.db
          .selectFrom('messages')
          .select('id')
          .where('campaign_id', '=', r.campaign_id)
          .execute();
        ids.push(Number(row.id));
      }
      for (const id of ids) await settled(id, 'cancelled');
      // The late failure of 1001 is posted and changes nothing; the fallback's wait runs out with nothing sent.
      await eventually(
        async () => (await wa.control.webhooks()).some((w) => w.body.includes(late) && w.body.includes('131000')),
        8000,
        '1001 failure posted',
      );
      await new Promise((r) => setTimeout(r, 5500));
      assert.deepEqual([...(await smsTo(ok)), ...(await smsTo(late))], []);
      assert.equal((await message(ids[1])).status, 302);
      const after = await ledger();
      assert.deepEqual(
        after.slice(before.length).map((e) => e.amount),
        [-2, -2],
        'each charged its utility price, nothing given back',
      );
    });

    it('not delivered within after_seconds: the SMS goes; the late delivery is reported too, each charged once', async () => {
      const phone = user(5, '0005');
      const before = await ledger();
      await wa.control.post('/status-delay', { ms: 2500 });
      let id: number;
      try {
        const r = await waApi('send-whatsapp-template', {
          source: BUSINESS,
          destination: phone,
          templateId: 'order_update',
          dynamicFieldsObject: { '1': 'C-3' },
          fallback: { channel: 'sms', source: 'Yona', after_seconds: 1 },
        });
        id = Number(r.ans.unique);
        const sms = await smsArrives(phone);
        assert.equal(sms.text, 'Your order C-3 is on its way.');
        await settled(id, 'sent');
        assert.notEqual((await message(id)).status, 302, 'the SMS left before WhatsApp delivered');
      } finally {
        await wa.control.post('/status-delay', { ms: FAST_MS });
      }
      await eventually(async () => (await message(id)).status === 303, 15_000, 'WhatsApp read, late');
      const reports = await eventually(async () => {
        const list = await reportsOf(phone);
        return list.length === 2 && list.some((x) => x.channel !== 'whatsapp' && x.status === '102') ? list : undefined;
      });
      assert.deepEqual(reports.map((x) => x.channel === 'whatsapp').sort(), [false, true]);
      // Pushed too: the SMS's report on dlr, WhatsApp's late statuses on dlr_whatsapp.
      await eventually(
        () => dlrHook.received.find((p) => p.fields.phone === phone && p.fields.status === '102'),
        8000,
        "the SMS's dlr push",
      );
      const waPushes = await eventually(() => {
        const list = waHook.received.map((p) => JSON.parse(p.body)).filter((f) => f.phone === phone);
        return list.some((f) => f.ack === 'read') ? list : undefined;
      });
      assert.ok(waPushes.some((f) => f.ack === 'delivered' && f.unique === String(id)));
      assert.ok(!dlrHook.received.some((p) => p.fields.status === '302' || p.fields.status === '303'));
      const added = (await ledger()).slice(before.length);
      assert.deepEqual(
        added.map((e) => e.amount),
        [-2, -1],
        'the WhatsApp message at its category price and the SMS as a text',
      );
      assert.equal((await smsTo(phone)).length, 1, 'one SMS');
    });

    it('its carrier unreachable until the wait ran out: the WhatsApp message is withdrawn and refunded, the SMS alone goes', async () => {
      const phone = user(11, '0011');
      await openWindow(t.service.store.db, { accountId, businessNumber: BUSINESS_DOWN, user: phone }, Date.now());
      const before = await ledger();
      const r = await waApi('send-whatsapp-message', {
        source: BUSINESS_DOWN,
        destination: phone,
        message: 'Your table is ready',
        fallback: { channel: 'sms', source: 'Yona', after_seconds: 1 },
      });
      const id = Number(r.ans.unique);
      const sms = await smsArrives(phone);
      assert.deepEqual([sms.source, sms.text], ['Yona', 'Your table is ready']);
      const f = await settled(id, 'sent');
      const withdrawn = await message(id);
      assert.deepEqual(
        [withdrawn.state, Number(withdrawn.status), Number(withdrawn.cost_credits)],
        ['cancelled', 104, 0],
      );
      // The dispatcher goes on running: the withdrawn message is never taken again.
      await new Promise((r) => setTimeout(r, 1500));
      const still = await message(id);
      assert.deepEqual(
        [still.state, Number(still.status), Number(still.attempts)],
        ['cancelled', 104, withdrawn.attempts],
      );
      const added = (await ledger()).slice(before.length);
      assert.deepEqual(
        added.map((e) => [e.amount, e.ref]),
        [
          [-1, `campaign:${withdrawn.campaign_id}`],
          [-1, `campaign:${(await message(Number(f.sms_message_id))).campaign_id}`],
          [1, `message:${id}`],
        ],
        'the WhatsApp charge (service: 1 credit) given back once; the SMS charged as a text',
      );
      assert.match(added[2].reason, /withdrawn/);
      assert.equal((await smsTo(phone)).length, 1, 'one SMS');
      // Reported: the WhatsApp message cancelled (104, pushed on dlr_whatsapp as `cancelled`), and the SMS.
      const pushed = await eventually(() =>
        waHook.received.map((p) => JSON.parse(p.body)).find((x) => x.phone === phone && x.status === '104'),
      );
      assert.deepEqual([pushed.ack, pushed.unique], ['cancelled', String(id)]);
      await eventually(async () => {
        const reports = await reportsOf(phone);
        return reports.some((x) => x.channel === 'whatsapp' && x.status === '104') && reports.length === 2;
      });
    });

    it('a failed WhatsApp message is refunded exactly its charge, once, however often the failure is posted', async () => {
      const phone = user(6, '1026');
      const before = await ledger();
      const r = await waApi('send-whatsapp-template', {
        source: BUSINESS,
        destination: phone,
        templateId: 'order_update',
        dynamicFieldsObject: { '1': 'D-4' },
      });
      const id = Number(r.ans.unique);
      await eventually(async () => (await message(id)).status === 305, 15_000, 'no WhatsApp');
      const posted = await eventually(async () => {
        const list = await wa.control.webhooks();
        return list.find((w) => w.body.includes(phone) && w.body.includes('131026'));
      });
      // Meta repeats its statuses: the same failure posted twice more, and the processing settles.
      for (let i = 0; i < 2; i++) {
        const signature = `sha256=${createHmac('sha256', SIM_APP_SECRET).update(posted.body).digest('hex')}`;
        const res = await request(`${t.httpUrl}/webhooks/whatsapp/${carrier}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
          body: posted.body,
        });
        assert.equal(res.statusCode, 200);
        await res.body.dump();
      }
      await new Promise((r) => setTimeout(r, 1000));
      const added = (await ledger()).slice(before.length);
      assert.deepEqual(
        added.map((e) => [e.amount, e.ref]),
        [
          [-2, `campaign:${(await message(id)).campaign_id}`],
          [2, `message:${id}`],
        ],
      );
      assert.match(added[1].reason, /refund/);
      assert.equal(Number((await message(id)).cost_credits), 0);
      assert.deepEqual(await smsTo(phone), [], 'no fallback asked, none sent');
    });

    it('a WhatsApp one-time code falls back to SMS, and the code it carries validates', async () => {
      const phone = user(7, '1026');
      const r = await waApi('send-otp-whatsapp', {
        phone,
        fallback: { channel: 'sms', source: 'Yona', after_seconds: 600 },
      });
      const id = Number(r.ans.unique);
      assert.equal((await message(id)).text, '[code] is your verification code.');
      const sms = await smsArrives(phone);
      const match = /^(\d+) is your verification code\.$/.exec(sms.text);
      assert.ok(match, sms.text);
      assert.equal(sms.source, 'Yona');
      const f = await settled(id, 'sent');
      assert.equal(Number((await message(Number(f.sms_message_id))).priority), 1, "in the codes' priority lane");
      const validate = await s.call('validate_otp', { phone, code: match[1], service_type: 'whatsapp' });
      assert.equal(validate.status, 0, JSON.stringify(validate));
    });

    it('prices each WhatsApp send by its category on /api/test, writing nothing (no fallback, no code)', async () => {
      const phone = user(8, '0008');
      await openWindow(t.service.store.db, { accountId, businessNumber: BUSINESS, user: phone }, Date.now());
      const count = async (table: 'whatsapp_fallbacks' | 'otp_codes' | 'messages') =>
        Number(
          (
            await t.service.store.db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = {
        balance: await s.balance(),
        fallbacks: await count('whatsapp_fallbacks'),
        codes: await count('otp_codes'),
        messages: await count('messages'),
      };
      const fallback = { channel: 'sms', source: 'Yona', after_seconds: 0 };
      const dry = (root: string, doc: Record<string, unknown>) => s.call(root, doc, { dryRun: true });
      const template = await dry('send_whatsapp_template', {
        source: BUSINESS,
        destination: phone,
        templateId: 'order_update',
        dynamicFieldsObject: { '1': 'E-5' },
        fallback,
      });
      assert.deepEqual(
        [template.status, template.category, template.credits, template.campaign_id, template.unique],
        [0, 'utility', 2, 0, '0'],
      );
      const text = await dry('send_whatsapp_message', {
        source: BUSINESS,
        destination: phone,
        message: 'hi',
        fallback,
      });
      assert.deepEqual([text.status, text.category, text.credits], [0, 'service', 1], 'service unset: 1 credit');
      const code = await dry('send_otp_whatsapp', { phone, fallback });
      assert.deepEqual([code.status, code.credits], [0, 3], 'a code is authentication');
      const many = await dry('sms', {
        source: BUSINESS,
        channel: 'whatsapp',
        destinations: { phone: [phone, user(9, '0009')] },
        template: { id: 'order_update', variables: { '1': 'F-6' } },
        fallback,
      });
      assert.deepEqual([many.status, many.recipients, many.credits, many.campaign_id], [0, 2, 4, 0]);
      assert.deepEqual(
        {
          balance: await s.balance(),
          fallbacks: await count('whatsapp_fallbacks'),
          codes: await count('otp_codes'),
          messages: await count('messages'),
        },
        before,
      );
      await new Promise((r) => setTimeout(r, 500));
      assert.deepEqual(await smsTo(phone), [], 'no fallback SMS from a dry run');
    });
  });
}
