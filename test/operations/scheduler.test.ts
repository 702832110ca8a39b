// The scheduler on every store, with an injected clock: a scheduled campaign is released when due (campaign
// and messages queued, dispatch signalled), not before; numbers blocked since acceptance are skipped (201)
// and refunded, and so are numbers the send's temp_bl catches by then (715, reported); a (re)started
// scheduler releases everything overdue at once; racing releases never double up; timing is read in the
// account's own time zone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fromZoned } from '../../src/domain/dates.ts';
import { insertPushRegistration } from '../../src/store/push.ts';
import { releaseDueCampaigns, schedulerComponent } from '../../src/delivery/scheduler.ts';
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

const at = (day: number, hour: number, minute = 0) =>
  fromZoned({ year: 2026, month: 7, day, hour, minute, second: 0 }, 'Asia/Jerusalem');

const targets = await storeTargets();
for (const target of targets) {
  describe(`scheduler (${target.name})`, () => {
    let t: TestService;
    let s: Sender;
    let now = at(1, 9);
    let dispatchSignals = 0;
    const release = () => releaseDueCampaigns(t.service.store.db, now);
    const schedule = (timing: string, phone: unknown = ['0501234567', '0521234567']) =>
      s.sms({ destinations: { phone }, timing });

    before(async () => {
      t = await startSendingService(target, { clock: () => now });
      s = await newSender(t, 'planner', 1000);
      t.service.signals.subscribe('dispatch', () => dispatchSignals++);
    });
    after(() => t.close());

    it('releases a campaign when its time comes, not before', async () => {
      const sent = await schedule('01/07/26 10:30');
      assert.equal(sent.status, 0);
      now = at(1, 10, 29);
      assert.equal(await release(), 0);
      assert.equal((await campaignRow(t, sent.campaign_id)).state, 'scheduled');
      now = at(1, 10, 30);
      assert.equal(await release(), 2);
      const campaign = await campaignRow(t, sent.campaign_id);
      assert.deepEqual([campaign.state, Number(campaign.released_at)], ['queued', now]);
      assert.deepEqual(
        (await messagesOf(t, sent.campaign_id)).map((m) => [m.state, Number(m.next_attempt_at)]),
        [
          ['queued', now],
          ['queued', now],
        ],
      );
      assert.equal(await release(), 0, 'released once');
      assert.equal((await s.call('cancel', { campaign_id: sent.campaign_id })).status, 966);
    });

    it('skips and refunds numbers blocked after the send was accepted, with a 201 dlr event; all blocked finishes the campaign', async () => {
      const accountId = await t.accountId('planner');
      await insertPushRegistration(t.service.store.db, {
        accountId,
        type: 'dlr',
        url: 'https://push.example.com/dlr',
        now,
      });
      const mixed = await s.sms({
        destinations: { phone: [{ $: { id: 'ext-blocked' }, _: '0531110001' }, '0531110002'] },
        timing: '01/07/26 12:00',
      });
      const allBlocked = await schedule('01/07/26 12:00', ['0531110001']);
      assert.equal((await s.call('addNumBL', { phones: { phone: '0531110001' } })).status, 946);
      const credits = (await s.balance()).credits;
      now = at(1, 12, 5);
      assert.equal(await release(), 1);
      assert.deepEqual(
        (await messagesOf(t, mixed.campaign_id)).map((m) => [m.phone, m.state, m.status, Number(m.cost_credits)]),
        [
          ['972531110001', 'skipped', 201, 0],
          ['972531110002', 'queued', null, 1],
        ],
      );
      assert.equal((await campaignRow(t, allBlocked.campaign_id)).state, 'sent');
      assert.equal((await s.balance()).credits, credits + 2);
      const events = await t.service.store.db
        .selectFrom('push_events')
        .select('payload')
        .where('type', '=', 'dlr')
        .orderBy('id')
        .execute();
      const reports = events.map((e) => JSON.parse(e.payload) as Record<string, string>);
      assert.deepEqual(
        reports.map((r) => [r.external_id, r.phone, r.status, r.shipment_id]),
        [
          ['ext-blocked', '972531110001', '201', String(mixed.campaign_id)],
          ['', '972531110001', '201', String(allBlocked.campaign_id)],
        ],
      );
    });

    it('a started scheduler releases everything overdue at once, and wakes on the schedule signal', async () => {
      const overdue = await Promise.all([schedule('02/07/26 08:00'), schedule('02/07/26 09:00')]);
      now = at(3, 9);
      const signalsBefore = dispatchSignals;
      const scheduler = schedulerComponent({ intervalMs: 60_000 });
      await scheduler.start(t.service);
      try {
        for (const o of overdue) assert.equal((await campaignRow(t, o.campaign_id)).state, 'queued');
        assert.ok(dispatchSignals > signalsBefore, 'the dispatcher was told');
        const next = await schedule('03/07/26 09:30');
        now = at(3, 9, 30);
        t.service.signals.notify('schedule');
        for (let i = 0; i < 100 && (await campaignRow(t, next.campaign_id)).state === 'scheduled'; i++)
          await new Promise((r) => setTimeout(r, 10));
        assert.equal((await campaignRow(t, next.campaign_id)).state, 'queued');
      } finally {
        await scheduler.stop();
      }
    });

    it('concurrent releases of the same due campaigns queue each message exactly once', async () => {
      const sends = await Promise.all(Array.from({ length: 5 }, () => schedule('04/07/26 08:00')));
      now = at(4, 8);
      const queued = await Promise.all([release(), release(), release()]);
      assert.equal(
        queued.reduce((a, b) => a + b, 0),
        10,
      );
      for (const x of sends)
        assert.deepEqual(
          (await messagesOf(t, x.campaign_id)).map((m) => m.state),
          ['queued', 'queued'],
        );
    });

    it("re-applies the send's temp_bl at release: a number messaged since acceptance is skipped (715), refunded and reported, in JSON and XML", async () => {
      const json = await s.sms({
        destinations: { phone: [{ $: { id: 'ext-recent' }, _: '0531120001' }, '0531120002'] },
        timing: '05/07/26 10:00',
        temp_bl: '2',
      });
      const xmlSent = await t.post(
        '<sms><user><username>planner</username></user><source>Yona</source><destinations><phone id="x-recent">0531120003</phone></destinations>' +
          '<message>hello</message><timing>05/07/26 10:00</timing><temp_bl>2</temp_bl></sms>',
        { contentType: 'application/xml', token: s.token },
      );
      assert.deepEqual(
        [json.status, json.recipients, xmlStatus(xmlSent.text)],
        [0, 2, 0],
        'nothing recent at acceptance',
      );
      const xmlId = Number(xmlField(xmlSent.text, 'campaign_id'));
      now = at(4, 9);
      assert.equal(
        (await s.sms({ destinations: { phone: ['0531120001', '0531120003'] } })).status,
        0,
        'messaged a day before the release',
      );
      const credits = (await s.balance()).credits;
      now = at(5, 10);
      assert.equal(await release(), 1);
      assert.deepEqual(
        (await messagesOf(t, json.campaign_id)).map((m) => [m.phone, m.state, m.status, Number(m.cost_credits)]),
        [
          ['972531120001', 'skipped', 715, 0],
          ['972531120002', 'queued', null, 1],
        ],
      );
      assert.deepEqual(
        (await messagesOf(t, xmlId)).map((m) => [m.state, m.status]),
        [['skipped', 715]],
      );
      assert.equal((await campaignRow(t, xmlId)).state, 'sent', 'all skipped: nothing left to send');
      assert.equal((await s.balance()).credits, credits + 2);
      const window = { from: '01/07/26 08:00', to: '05/07/26 11:00' }; // dlr by id: accepted or submitted in it
      const dlr = await s.call('dlr', { transactions: { external_id: ['ext-recent'] }, ...window });
      assert.deepEqual(
        dlr.transactions.map((r: Record<string, string>) => [
          r.external_id,
          String(r.status),
          r.shipment_id,
          r.he_message,
        ]),
        [['ext-recent', '715', String(json.campaign_id), 'נחסם זמנית (temp_bl)']],
      );
      assert.match(dlr.transactions[0].en_message, /^Temporarily blocked \(temp_bl\)/);
      const xml = await t.post(
        `<dlr><user><username>planner</username></user><transactions><external_id>x-recent</external_id></transactions><from>${window.from}</from><to>${window.to}</to></dlr>`,
        { contentType: 'application/xml', token: s.token },
      );
      assert.match(
        xml.text,
        /<transaction><external_id>x-recent<\/external_id><status>715<\/status><he_message>נחסם זמנית \(temp_bl\)<\/he_message>/,
      );
      const pushed = await t.service.store.db
        .selectFrom('push_events')
        .select('payload')
        .where('type', '=', 'dlr')
        .orderBy('id')
        .execute();
      assert.deepEqual(
        pushed
          .map((e) => JSON.parse(e.payload) as Record<string, string>)
          .filter((r) => r.status === '715')
          .map((r) => r.external_id),
        ['ext-recent', 'x-recent'],
      );
    });

    it("timing is read in the account's own time zone (America/New_York), in JSON and XML", async () => {
      const ny = await newSender(t, 'newyorker', 100, ['--time-zone', 'America/New_York']);
      const due = fromZoned({ year: 2026, month: 7, day: 6, hour: 10, minute: 30, second: 0 }, 'America/New_York');
      assert.equal(due, at(6, 17, 30), '10:30 in New York is 17:30 in Jerusalem');
      const json = await ny.sms({ destinations: { phone: '0501234567' }, timing: '06/07/26 10:30' });
      const xml = await t.post(
        '<sms><user><username>newyorker</username></user><source>Yona</source><destinations><phone>0521234567</phone></destinations>' +
          '<message>hello</message><timing>06/07/26 10:30</timing></sms>',
        { contentType: 'application/xml', token: ny.token },
      );
      assert.deepEqual(
        [json.status, json.timing, xmlStatus(xml.text), xmlField(xml.text, 'timing')],
        [0, '06/07/26 10:30', 0, '06/07/26 10:30'],
      );
      const ids = [json.campaign_id, Number(xmlField(xml.text, 'campaign_id'))];
      for (const id of ids) assert.equal(Number((await campaignRow(t, id)).scheduled_at), due);
      now = at(6, 10, 30);
      assert.equal(await release(), 0, 'not at 10:30 in Jerusalem');
      now = due - 60_000;
      assert.equal(await release(), 0);
      now = due;
      assert.equal(await release(), 2);
      for (const id of ids) assert.equal((await campaignRow(t, id)).state, 'queued');
    });
  });
}
