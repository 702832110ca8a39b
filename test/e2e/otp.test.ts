// One-time codes end to end on every store: send_otp over HTTP (JSON and XML) texts a code through the bundled
// SMPP simulator, the code read from the handset's SMS validates once, and every refusal has its status and
// message: field ranges, unverified sender, landline, international, expiry (injected clock), attempts, apps,
// replacement, dry run, blocklist and the abuse limits. The code is in no reply and not in the store in clear.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { storeTargets } from '../helpers/stores.ts';
import { sendTableCounts, xmlField, xmlStatus } from '../operations/send-helpers.ts';
import {
  eventually,
  newSender,
  startDelivery,
  windowAroundNow,
  type DeliveryHarness,
  type Sender,
} from '../delivery/delivery-helpers.ts';
import { whenQuiet } from '../helpers/quiescence.ts';

const targets = await storeTargets();
const NO_LIMITS = {
  YONA_OTP_RESEND_SECONDS: '0',
  YONA_OTP_PHONE_HOURLY: '0',
  YONA_OTP_ACCOUNT_HOURLY: '0',
  YONA_OTP_PHONE_FAILURES_HOURLY: '0',
};

/** The code in the latest SMS the simulated handset `phone` (international form) received, waiting for it. */
async function codeOnHandset(h: DeliveryHarness, phone: string, count: number): Promise<string> {
  const messages = await eventually(
    () => {
      const got = h.simulator.messages({ to: phone });
      return got.length >= count ? got : undefined;
    },
    8000,
    `SMS number ${count} to ${phone}`,
  );
  const code = /(\d{6})/.exec(messages[count - 1].text)?.[1];
  assert.ok(code, `a 6-digit code in "${messages[count - 1].text}"`);
  return code;
}

for (const target of targets) {
  describe(`send_otp and validate_otp (${target.name})`, () => {
    let h: DeliveryHarness;
    let s: Sender;
    let now = Date.now();
    const otp = (doc: Record<string, unknown>, options?: { dryRun?: boolean }) =>
      s.call('send_otp', { source: 'Yona', ...doc }, options);
    const check = (phone: string, code: string, extra: Record<string, unknown> = {}) =>
      s.call('validate_otp', { phone, code, ...extra });
    const xml = (root: string, inner: string) =>
      h.t.post(`<${root}><user><username>${s.username}</username></user>${inner}</${root}>`, {
        contentType: 'application/xml',
        token: s.token,
      });

    before(async () => {
      h = await startDelivery(target, { clock: () => now, env: NO_LIMITS });
      s = await newSender(h.t, 'coder', 100);
    });
    after(() => h.close());

    it('texts a code that validates once: 0, then 12 "already used"; the reply never carries it', async () => {
      const reply = await otp({ phone: '0521230001' });
      assert.equal(reply.status, 0, reply.message);
      assert.match(reply.message, /sent to 0521230001; it is valid for 5 minutes/);
      assert.deepEqual([reply.credits, reply.valid_time, reply.max_tries], [1, 5, 3]);
      assert.ok(reply.campaign_id > 0);
      const code = await codeOnHandset(h, '972521230001', 1);
      assert.equal(h.simulator.messages({ to: '972521230001' })[0].text, `the code is ${code}`);
      assert.ok(!JSON.stringify(reply).includes(code), 'the reply does not carry the code');
      assert.equal((await s.balance()).credits, 99);

      const wrong = await check('0521230001', code === '000000' ? '111111' : '000000');
      assert.deepEqual([wrong.status, wrong.message], [12, 'Unverified code: wrong code (2 attempts left)']);
      const right = await check('521230001', code);
      assert.deepEqual([right.status, right.message], [0, 'Code verified']);
      const again = await check('0521230001', code);
      assert.deepEqual(
        [again.status, again.message],
        [12, 'Unverified code: this code was already used; request a new one'],
      );
      // Its delivery is reported like any SMS's.
      const report = await eventually(
        async () => {
          const r = await s.call('dlrByDate', windowAroundNow(now));
          return (r.transactions as Array<Record<string, string>>).find(
            (x) => x.phone === '972521230001' && x.status === '102',
          );
        },
        8000,
        'the delivery report of the code',
      );
      assert.equal(report.shipment_id, String(reply.campaign_id));
    });

    it('keeps the code out of the store: the message holds [code], its sealed copy is gone once sent, the hash is keyed', async () => {
      const reply = await otp({ phone: '0521230002', text: 'Your Yona code: [code]. Do not share [code].' });
      const code = await codeOnHandset(h, '972521230002', 1);
      assert.equal(
        h.simulator.messages({ to: '972521230002' })[0].text,
        `Your Yona code: ${code}. Do not share ${code}.`,
      );
      const db = h.t.service.store.db;
      const message = await eventually(
        async () => {
          const m = await db
            .selectFrom('messages')
            .selectAll()
            .where('campaign_id', '=', reply.campaign_id)
            .executeTakeFirstOrThrow();
          return m.state !== 'submitting' && m.state !== 'queued' ? m : undefined;
        },
        8000,
        'the message leaving the queue',
      );
      assert.equal(message.text, 'Your Yona code: [code]. Do not share [code].');
      assert.equal(message.sealed, null);
      assert.equal(Number(message.priority), 1);
      const row = await db
        .selectFrom('otp_codes')
        .selectAll()
        .where('campaign_id', '=', reply.campaign_id)
        .executeTakeFirstOrThrow();
      assert.match(row.code_hash, /^hmac\$/);
      assert.ok(!row.code_hash.includes(code));
      const campaign = await db
        .selectFrom('campaigns')
        .select(['kind', 'options'])
        .where('id', '=', reply.campaign_id)
        .executeTakeFirstOrThrow();
      assert.equal(campaign.kind, 'otp');
      assert.ok(!campaign.options.includes(code));
    });

    it('takes numeric strings and XML, with its own text, app, tries and validity', async () => {
      const sent = await xml(
        'send_otp',
        '<phone>0521230003</phone><source>Yona</source><app_id>7</app_id><max_tries>5</max_tries><valid_time>15</valid_time><text>קוד: [code]</text>',
      );
      assert.equal(xmlStatus(sent.text), 0, sent.text);
      assert.equal(xmlField(sent.text, 'valid_time'), '15');
      assert.equal(xmlField(sent.text, 'max_tries'), '5');
      const code = await codeOnHandset(h, '972521230003', 1);
      assert.equal(h.simulator.messages({ to: '972521230003' })[0].text, `קוד: ${code}`);
      const noApp = await xml('validate_otp', `<phone>0521230003</phone><code>${code}</code>`);
      assert.equal(xmlStatus(noApp.text), 12);
      assert.match(noApp.text, /<message>Unverified code: no code was sent to this phone for app_id 1<\/message>/);
      const ok = await xml(
        'validate_otp',
        `<phone>0521230003</phone><code>${code}</code><app_id>7</app_id><service_type>sms</service_type>`,
      );
      assert.equal(xmlStatus(ok.text), 0, ok.text);
      const json = await otp({ phone: '0521230004', app_id: '2', max_tries: '4', valid_time: '10' });
      assert.deepEqual([json.status, json.max_tries, json.valid_time], [0, 4, 10]);
    });

    it('refuses values out of range and a text without [code] with status 2, never clamping; nothing is sent', async () => {
      const before = await sendTableCounts(h.t);
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [{ max_tries: 2 }, /^Invalid value for field max_tries: must be 3 to 5, got 2$/],
        [{ max_tries: '6' }, /^Invalid value for field max_tries: must be 3 to 5, got 6$/],
        [{ valid_time: 0 }, /^Invalid value for field valid_time: must be 1 to 15, got 0$/],
        [{ valid_time: 16 }, /^Invalid value for field valid_time: must be 1 to 15, got 16$/],
        [{ app_id: 0 }, /^Invalid value for field app_id: must be 1 to/],
        [{ max_tries: 'three' }, /^Invalid value for field max_tries/],
        [{ text: 'your code is here' }, /^Invalid value for field text: it must contain \[code\]/],
      ];
      for (const [fields, message] of cases) {
        const reply = await otp({ phone: '0521230005', ...fields });
        assert.equal(reply.status, 2, JSON.stringify(fields));
        assert.match(reply.message, message);
      }
      const missing = await s.call('send_otp', { source: 'Yona' });
      assert.deepEqual([missing.status, missing.message], [2, 'Missing required field: phone']);
      assert.equal((await otp({ phone: '0521230005', text: `${'x'.repeat(1001)}[code]` })).status, 989);
      assert.deepEqual(await sendTableCounts(h.t), before);
    });

    it('refuses an unverified source (515), a landline and a malformed number (933), a short one (9), international unless enabled', async () => {
      assert.equal((await otp({ phone: '0521230006', source: 'Other' })).status, 515);
      const landline = await otp({ phone: '031234567' });
      assert.deepEqual(
        [landline.status, landline.message],
        [933, 'Invalid phone number: "031234567" is not a mobile number'],
      );
      assert.equal((await otp({ phone: '05212' })).status, 9);
      const abroad = await otp({ phone: '+447911123456' });
      assert.equal(abroad.status, 933);
      assert.match(
        abroad.message,
        /international, and one-time codes to international numbers are not enabled for this account/,
      );
      await h.t.admin('otp-international', s.username, 'on');
      // Enabled, it is priced from the international balance (none here: 12), in a dry run that stores nothing.
      const priced = await otp({ phone: '+447911123456' }, { dryRun: true });
      assert.equal(priced.status, 12, priced.message);
      await h.t.admin('otp-international', s.username, 'off');
    });

    it('prices a dry run (/api/test) and stores or sends nothing; a dry validate_otp never compares the code', async () => {
      const before = await sendTableCounts(h.t);
      const reply = await otp({ phone: '0521230007' }, { dryRun: true });
      assert.deepEqual([reply.status, reply.campaign_id, reply.shipment_id, reply.credits], [0, 0, '0', 1]);
      assert.deepEqual(await sendTableCounts(h.t), before);
      assert.equal(
        await h.t.service.store.db
          .selectFrom('otp_codes')
          .select('id')
          .where('phone', '=', '972521230007')
          .executeTakeFirst(),
        undefined,
      );
      assert.equal(
        await whenQuiet(() => h.simulator.messages({ to: '972521230007' }).length, 'texts to the handset'),
        0,
      );

      await otp({ phone: '0521230007' });
      await codeOnHandset(h, '972521230007', 1);
      const dry = await s.call('validate_otp', { phone: '0521230007', code: '123' }, { dryRun: true });
      assert.deepEqual(
        [dry.status, dry.message],
        [0, 'Dry run: a code is pending for this phone; codes are compared only on /api'],
      );
      const row = await h.t.service.store.db
        .selectFrom('otp_codes')
        .select('attempts')
        .where('phone', '=', '972521230007')
        .executeTakeFirstOrThrow();
      assert.equal(Number(row.attempts), 0);
    });

    it('expires after valid_time (injected clock) and answers 12 "expired"', async () => {
      await otp({ phone: '0521230008', valid_time: 1 });
      const code = await codeOnHandset(h, '972521230008', 1);
      now += 61_000;
      const late = await check('0521230008', code);
      assert.deepEqual([late.status, late.message], [12, 'Unverified code: the code has expired; request a new one']);
    });

    it('counts attempts per code: after max_tries wrong codes even the right one is 12 "attempts exhausted"', async () => {
      await otp({ phone: '0521230009' });
      const code = await codeOnHandset(h, '972521230009', 1);
      const wrong = code === '999999' ? '888888' : '999999';
      assert.equal((await check('0521230009', wrong)).message, 'Unverified code: wrong code (2 attempts left)');
      assert.equal((await check('0521230009', wrong)).message, 'Unverified code: wrong code (1 attempt left)');
      assert.equal(
        (await check('0521230009', wrong)).message,
        'Unverified code: wrong code; attempts exhausted, request a new one',
      );
      const right = await check('0521230009', code);
      assert.deepEqual(
        [right.status, right.message],
        [12, 'Unverified code: attempts exhausted: 3 wrong codes; request a new one'],
      );
    });

    it('keeps apps apart, and a new code for the same phone and app replaces the previous one', async () => {
      await otp({ phone: '0521230010', app_id: 1 });
      const first = await codeOnHandset(h, '972521230010', 1);
      await otp({ phone: '0521230010', app_id: 2 });
      const second = await codeOnHandset(h, '972521230010', 2);
      await otp({ phone: '0521230010', app_id: 1 });
      const third = await codeOnHandset(h, '972521230010', 3);
      if (first !== third)
        assert.equal((await check('0521230010', first, { app_id: 1 })).status, 12, 'the replaced code no longer works');
      assert.equal((await check('0521230010', third, { app_id: 1 })).status, 0);
      assert.equal((await check('0521230010', second, { app_id: 2 })).status, 0);
    });

    it('goes through the blocklist like any send: a blocked phone is 8 and nothing is charged', async () => {
      assert.equal((await s.call('addNumBL', { phones: { phone: '0521230011' } })).status, 946);
      const credits = (await s.balance()).credits;
      const reply = await otp({ phone: '0521230011' });
      assert.equal(reply.status, 8);
      assert.equal((await s.balance()).credits, credits);
    });
  });

  describe(`one-time code abuse limits (${target.name})`, () => {
    let h: DeliveryHarness;
    let s: Sender;
    let now = Date.now();
    const otp = (phone: string, app = 1) => s.call('send_otp', { source: 'Yona', phone, app_id: app });

    before(async () => {
      h = await startDelivery(target, {
        clock: () => now,
        env: {
          YONA_OTP_RESEND_SECONDS: '30',
          YONA_OTP_PHONE_HOURLY: '3',
          YONA_OTP_ACCOUNT_HOURLY: '6',
          YONA_OTP_PHONE_FAILURES_HOURLY: '4',
        },
      });
      s = await newSender(h.t, 'limited', 100);
    });
    after(() => h.close());

    it('waits out the resend cooldown per phone and app, then allows at most 3 codes an hour to one phone (status 5)', async () => {
      assert.equal((await otp('0521240001')).status, 0);
      now += 10_000;
      const soon = await otp('0521240001');
      assert.deepEqual(
        [soon.status, soon.message],
        [
          5,
          'No permission to send SMS at this time: a code was sent to this phone 10 seconds ago; ask again in 20 seconds',
        ],
      );
      assert.equal((await otp('0521240001', 2)).status, 0, 'another app is not held by the cooldown');
      now += 20_000;
      assert.equal((await otp('0521240001')).status, 0);
      now += 31_000;
      const fourth = await otp('0521240001');
      assert.deepEqual(
        [fourth.status, fourth.message],
        [5, 'No permission to send SMS at this time: at most 3 codes an hour to one phone'],
      );
      now += 3_600_000;
      assert.equal((await otp('0521240001')).status, 0, 'an hour later the phone may get codes again');
    });

    it('allows at most 6 codes an hour per account (status 5)', async () => {
      now += 3_600_000;
      for (let i = 2; i <= 7; i++) assert.equal((await otp(`052124000${i}`)).status, 0);
      const seventh = await otp('0521240008');
      assert.deepEqual(
        [seventh.status, seventh.message],
        [5, 'No permission to send SMS at this time: at most 6 codes an hour for this account'],
      );
    });

    it('stops validation for a phone after 4 wrong codes in an hour, across its codes', async () => {
      now += 3_600_000;
      await otp('0521240009');
      const firstCode = await codeOnHandset(h, '972521240009', 1);
      const wrong = (c: string) => (c === '000000' ? '111111' : '000000');
      for (let i = 0; i < 3; i++)
        assert.equal((await s.call('validate_otp', { phone: '0521240009', code: wrong(firstCode) })).status, 12);
      now += 31_000;
      await otp('0521240009');
      const code = await codeOnHandset(h, '972521240009', 2);
      assert.equal(
        (await s.call('validate_otp', { phone: '0521240009', code: wrong(code) })).message,
        'Unverified code: wrong code (2 attempts left)',
      );
      const blocked = await s.call('validate_otp', { phone: '0521240009', code });
      assert.equal(blocked.status, 12);
      assert.match(
        blocked.message,
        /^Unverified code: too many wrong codes for this phone in the last hour \(4\); try again in \d+ minutes$/,
      );
    });
  });
}
