// sms over real HTTP on every store: the reply shape in both encodings, what a send writes, and each field
// rule with its status (source 992/515, destinations 9/933/2, message and campaign name 989, tag, timing 2,
// add_unsubscribe 986, temp_bl 714/715, the blocklist 8, includes_international, tts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formatShort, fromZoned } from '../../src/domain/dates.ts';
import { releaseDueCampaigns } from '../../src/delivery/scheduler.ts';
import type { TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import {
  campaignRow,
  messagesOf,
  newSender,
  startSendingService,
  xmlField,
  xmlStatus,
  type Sender,
} from './send-helpers.ts';

const ZONE = 'Asia/Jerusalem';
const at = (day: number, hour: number, minute = 0) =>
  fromZoned({ year: 2026, month: 6, day, hour, minute, second: 0 }, ZONE);

const targets = await storeTargets();
for (const target of targets) {
  describe(`sms (${target.name})`, () => {
    let t: TestService;
    let s: Sender;
    let now = at(1, 10);

    before(async () => {
      t = await startSendingService(target, { clock: () => now });
      s = await newSender(t, 'sender1', 10_000);
    });
    after(() => t.close());

    it('accepts a send: status 0, shipment_id, campaign_id, a queued message per recipient, credits debited', async () => {
      const before = await s.balance();
      const reply = await s.sms({
        destinations: { phone: [{ $: { id: 'ext-1' }, _: '0501234567' }, '521234567'] },
        message: 'Hello there',
      });
      assert.equal(reply.status, 0);
      assert.equal(reply.message, 'SMS will be sent');
      assert.equal(typeof reply.shipment_id, 'string');
      assert.equal(reply.shipment_id, String(reply.campaign_id));
      assert.ok(Number.isInteger(reply.campaign_id));
      assert.deepEqual([reply.recipients, reply.parts, reply.encoding, reply.credits], [2, 1, 'gsm7', 2]);
      assert.equal(reply.rejected, undefined);
      const rows = await messagesOf(t, reply.campaign_id);
      assert.deepEqual(
        rows.map((m) => [
          m.phone,
          m.external_id,
          m.state,
          m.text,
          m.source,
          Number(m.next_attempt_at),
          Number(m.cost_credits),
        ]),
        [
          ['972501234567', 'ext-1', 'queued', 'Hello there', 'Yona', now, 1],
          ['972521234567', null, 'queued', 'Hello there', 'Yona', now, 1],
        ],
      );
      const campaign = await campaignRow(t, reply.campaign_id);
      assert.deepEqual(
        [campaign.state, campaign.kind, Number(campaign.recipients), Number(campaign.credits_charged)],
        ['queued', 'sms', 2, 2],
      );
      assert.equal((await s.balance()).credits, before.credits - 2);
    });

    it('answers in XML with status, message and shipment_id as direct children, rejected as recipient items', async () => {
      const xml =
        '<?xml version="1.0" encoding="UTF-8"?><sms><user><username>sender1</username></user><source>Yona</source>' +
        '<destinations><phone id="x1">0501234567</phone><phone id="x2">05012</phone></destinations><message>XML hello</message></sms>';
      const res = await t.post(xml, { contentType: 'application/xml', token: s.token });
      assert.equal(xmlStatus(res.text), 0);
      assert.equal(xmlField(res.text, 'message'), 'SMS will be sent');
      assert.match(
        res.text,
        /^<\?xml version="1.0" encoding="UTF-8"\?><sms><status>0<\/status><message>SMS will be sent<\/message><shipment_id>\d+<\/shipment_id>/,
      );
      assert.match(
        res.text,
        /<rejected><recipient><phone>05012<\/phone><id>x2<\/id><reason>too_short<\/reason><status>9<\/status><\/recipient><\/rejected>/,
      );
      const rows = await messagesOf(t, Number(xmlField(res.text, 'campaign_id')));
      assert.deepEqual(
        rows.map((m) => [m.phone, m.external_id]),
        [['972501234567', 'x1']],
      );
    });

    it('source: more than 11 characters, a +, or other characters are 992; an unverified source is 515', async () => {
      for (const source of ['ABCDEFGHIJKL', '+972501234', 'Yo na', 'Yona!', 'יונה']) {
        assert.equal((await s.sms({ source, destinations: { phone: '0501234567' } })).status, 992, source);
      }
      const unverified = await s.sms({ source: 'Stranger', destinations: { phone: '0501234567' } });
      assert.equal(unverified.status, 515);
      assert.match(unverified.message, /Stranger/);
      await t.admin('verify-sender', 'sender1', '0541234567');
      assert.equal((await s.sms({ source: '0541234567', destinations: { phone: '0501234567' } })).status, 0);
      assert.equal(
        (await s.sms({ source: '541234567', destinations: { phone: '0501234567' } })).status,
        0,
        'the same number without its 0',
      );
    });

    it('missing source, message or destinations is status 2 naming the field', async () => {
      const call = (doc: Record<string, unknown>) => s.call('sms', doc);
      assert.match((await call({ destinations: { phone: '0501234567' }, message: 'x' })).message, /source/);
      assert.match((await call({ source: 'Yona', destinations: { phone: '0501234567' } })).message, /message/);
      const noDest = await call({ source: 'Yona', message: 'x' });
      assert.deepEqual([noDest.status, /destinations/.test(noDest.message)], [2, true]);
      assert.equal((await call({ source: 'Yona', message: 'x', destinations: {} })).status, 2);
      const blank = await call({ source: 'Yona', destinations: { phone: '0501234567' }, message: '   ' });
      assert.deepEqual([blank.status, blank.message], [2, 'Missing required field: message']);
    });

    it('a field given with a value of the wrong kind is 2 "Invalid value", not "Missing"; XML markup inside message is refused', async () => {
      const cancel = await s.call('cancel', { campaign_id: 'abc' });
      assert.equal(cancel.status, 2);
      assert.match(cancel.message, /^Invalid value for field campaign_id/);
      const xml = await t.post(
        '<sms><user><username>sender1</username></user><source>Yona</source><destinations><phone>0501234567</phone></destinations>' +
          '<message>Hi <b>there</b> you</message></sms>',
        { contentType: 'application/xml', token: s.token },
      );
      assert.equal(xmlStatus(xml.text), 2);
      assert.match(xmlField(xml.text, 'message') ?? '', /^Invalid value for field message/);
    });

    it('destinations: valid ones are sent, invalid ones listed; all too short/long is 9; all invalid is 933', async () => {
      const mixed = await s.sms({
        destinations: { phone: ['0501234567', '05012', '050123456789', 'abc', '031234567', '+14155550123'] },
      });
      assert.equal(mixed.status, 0);
      assert.equal(mixed.recipients, 1);
      assert.deepEqual(
        mixed.rejected.map((r: any) => [r.phone, r.reason, r.status]),
        [
          ['05012', 'too_short', 9],
          ['050123456789', 'too_long', 9],
          ['abc', 'invalid', 933],
          ['031234567', 'not_mobile', 933],
          ['+14155550123', 'international_not_allowed', 933],
        ],
      );
      const short = await s.sms({ destinations: { phone: ['05012', 'abc'] } });
      assert.deepEqual([short.status, short.rejected.length], [9, 2]);
      assert.equal((await s.sms({ destinations: { phone: ['abc', '+14155550123'] } })).status, 933);
    });

    it('removes duplicates written in different forms', async () => {
      const reply = await s.sms({
        destinations: { phone: ['0501234567', '501234567', '+972501234567', '972-50-123-4567', '0521234567'] },
      });
      assert.deepEqual([reply.status, reply.recipients, reply.credits], [0, 2, 2]);
    });

    it('message: up to 1005 characters; 1006 is 989. campaign_name: up to 50; 51 is 989', async () => {
      const ok = await s.sms({
        destinations: { phone: '0501234567' },
        message: 'a'.repeat(1005),
        campaign_name: 'n'.repeat(50),
      });
      assert.deepEqual([ok.status, ok.parts], [0, 7]);
      assert.equal((await campaignRow(t, ok.campaign_id)).name, 'n'.repeat(50));
      assert.equal((await s.sms({ destinations: { phone: '0501234567' }, message: 'a'.repeat(1006) })).status, 989);
      assert.equal((await s.sms({ destinations: { phone: '0501234567' }, campaign_name: 'n'.repeat(51) })).status, 989);
    });

    it('tag is glued in front of the message', async () => {
      const reply = await s.sms({ destinations: { phone: '0501234567' }, tag: '<#> ', message: 'Your code is 1234' });
      assert.equal((await messagesOf(t, reply.campaign_id))[0].text, '<#> Your code is 1234');
    });

    it('timing: a future time schedules in the account time zone; a past time sends now; malformed is 2', async () => {
      const later = await s.sms({ destinations: { phone: '0501234567' }, timing: '02/06/26 08:30' });
      assert.deepEqual([later.status, later.timing], [0, '02/06/26 08:30']);
      const campaign = await campaignRow(t, later.campaign_id);
      assert.deepEqual([campaign.state, Number(campaign.scheduled_at)], ['scheduled', at(2, 8, 30)]);
      const [message] = await messagesOf(t, later.campaign_id);
      assert.deepEqual([message.state, Number(message.next_attempt_at)], ['scheduled', at(2, 8, 30)]);
      const past = await s.sms({ destinations: { phone: '0501234567' }, timing: '01/05/26 08:30' });
      assert.equal((await campaignRow(t, past.campaign_id)).state, 'queued');
      for (const timing of ['2026-06-02 08:30', '32/01/26 10:00', '02/06/26', 'soon']) {
        const bad = await s.sms({ destinations: { phone: '0501234567' }, timing });
        assert.equal(bad.status, 2, timing);
        assert.match(bad.message, /timing/);
      }
    });

    it('add_unsubscribe: 2 appends a reply-to-remove line, 3 a removal link, other numbers nothing, garbage 986', async () => {
      const text = async (value: unknown) =>
        (
          await messagesOf(
            t,
            (
              await s.sms({ destinations: { phone: '0501234567' }, add_unsubscribe: value, message: 'Sale' })
            ).campaign_id,
          )
        )[0].text;
      assert.equal(await text('2'), 'Sale\nלהסרה השב הסר');
      assert.match(await text(3), /^Sale\nלהסרה: https:\/\/localhost:\d+\/u\/[A-Za-z0-9_-]{16}$/);
      assert.equal(await text('1'), 'Sale');
      assert.equal(await text('0'), 'Sale');
      assert.equal((await s.sms({ destinations: { phone: '0501234567' }, add_unsubscribe: 'yes' })).status, 986);
      assert.equal((await s.sms({ destinations: { phone: '0501234567' }, add_unsubscribe: '2.5' })).status, 986);
    });

    it('temp_bl: 1..14 skips numbers messaged in the last n days (all skipped 715); other values 714', async () => {
      for (const temp_bl of ['0', '15', 'x', '-1']) {
        assert.equal((await s.sms({ destinations: { phone: '0501234567' }, temp_bl })).status, 714, temp_bl);
      }
      const first = '0531110001';
      now += 60_000;
      assert.equal((await s.sms({ destinations: { phone: first } })).status, 0);
      now += 2 * 24 * 3600_000;
      const mixed = await s.sms({ destinations: { phone: [first, '0531110002'] }, temp_bl: '3' });
      assert.deepEqual([mixed.status, mixed.recipients], [0, 1]);
      assert.deepEqual(mixed.rejected, [{ phone: '972531110001', reason: 'temp_bl', status: 715 }]);
      const all = await s.sms({ destinations: { phone: first }, temp_bl: '3' });
      assert.equal(all.status, 715);
      assert.equal(
        (await s.sms({ destinations: { phone: first }, temp_bl: '1' })).status,
        0,
        'two days ago is outside a 1-day window',
      );
      // A campaign accepted long ago that went out today counts from when it went out.
      const later = '0531110003';
      const scheduled = await s.sms({
        destinations: { phone: later },
        timing: formatShort(now + 10 * 24 * 3600_000, ZONE),
      });
      assert.equal(scheduled.status, 0);
      now += 10 * 24 * 3600_000 + 60_000;
      await releaseDueCampaigns(t.service.store.db, now);
      assert.equal(
        (await s.sms({ destinations: { phone: later }, temp_bl: '1' })).status,
        715,
        'released a minute ago',
      );
    });

    it('the blocklist: blocked numbers are skipped; all blocked is 8 and nothing is charged', async () => {
      assert.equal((await s.call('addNumBL', { phones: { phone: ['0549990001', '0549990002'] } })).status, 946);
      const mixed = await s.sms({ destinations: { phone: ['0549990001', { $: { id: 'k' }, _: '0549990003' }] } });
      assert.deepEqual([mixed.status, mixed.recipients], [0, 1]);
      assert.deepEqual(mixed.rejected, [{ phone: '972549990001', reason: 'blocked', status: 8 }]);
      const before = await s.balance();
      const all = await s.sms({ destinations: { phone: ['0549990001', '0549990002'] } });
      assert.equal(all.status, 8);
      assert.equal(all.rejected.length, 2);
      assert.deepEqual(await s.balance(), before);
    });

    it('includes_international 1 allows foreign numbers, charged from the international balance', async () => {
      const poor = await s.sms({ destinations: { phone: '+447911123456' }, includes_international: '1' });
      assert.equal(poor.status, 12, 'no international money yet');
      const rich = await newSender(t, 'intl1', 100, ['--international', '10']);
      const reply = await rich.sms({
        destinations: { phone: ['+447911123456', '0501234567'] },
        includes_international: 1,
      });
      assert.deepEqual([reply.status, reply.recipients, reply.credits, reply.international_cost], [0, 2, 1, '0.25']);
      assert.deepEqual(await rich.balance(), { credits: 99, agorot: 975 });
      const rows = await messagesOf(t, reply.campaign_id);
      assert.deepEqual(
        rows.map((m) => [m.phone, Number(m.cost_credits), Number(m.cost_agorot)]),
        [
          ['447911123456', 0, 25],
          ['972501234567', 1, 0],
        ],
      );
      assert.equal(
        (await rich.sms({ destinations: { phone: '+447911123456' }, includes_international: '0' })).status,
        933,
      );
    });

    it('a tts block is validated (2 on bad values) and stored with a campaign of kind tts', async () => {
      const reply = await s.sms({
        destinations: { phone: '0501234567' },
        tts: { type: '3', rate: '-2', voice: 'ymFemale' },
      });
      assert.equal(reply.status, 0);
      const campaign = await campaignRow(t, reply.campaign_id);
      assert.equal(campaign.kind, 'tts');
      assert.deepEqual(JSON.parse(campaign.options).tts, { type: 3, rate: -2, repeat: 2, voice: 'ymFemale' });
      for (const tts of [{ type: '5' }, {}, { type: 2, rate: 11 }, { type: 2, voice: 'robot' }]) {
        assert.equal((await s.sms({ destinations: { phone: '0501234567' }, tts })).status, 2, JSON.stringify(tts));
      }
    });
  });
}
