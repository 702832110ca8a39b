// Birthday campaigns on every store: the operations over real HTTP (988, 515, 977, XML, dry-run) and the
// worker with an injected clock and a fake sender: the right day and hour, once a year, never twice.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fromZoned } from '../../src/domain/dates.ts';
import type { Service } from '../../src/service.ts';
import {
  birthdayComponent,
  parseDayMonth,
  runBirthdays,
  type BirthdaySend,
  type BirthdaySender,
} from '../../src/delivery/birthdays.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';

const xmlStatus = (text: string) => Number(/<status>(-?\d+)<\/status>/.exec(text)?.[1]);
const IL = 'Asia/Jerusalem';
const local = (zone: string, year: number, month: number, day: number, hour: number, minute = 0) =>
  fromZoned({ year, month, day, hour, minute, second: 0 }, zone);
const il = (month: number, day: number, hour: number, minute = 0, year = 2026) =>
  local(IL, year, month, day, hour, minute);

const targets = await storeTargets();
for (const target of targets) {
  describe(`birthdays (${target.name})`, () => {
    let t: TestService;
    let token: string;
    let now = il(3, 1, 12);
    const as =
      (username: string, tok = () => token) =>
      (root: string, doc: Record<string, unknown>, dryRun = false) =>
        t.api(root, { user: { username }, ...doc }, { token: tok(), dryRun });
    const call = as('bday');

    // A fake send path that records each call and checks the greeting rows are visible in its transaction.
    function recorder(campaignId: number) {
      const calls: BirthdaySend[] = [];
      const send: BirthdaySender = async (db, s) => {
        const rows = await db
          .selectFrom('birthday_sends')
          .select('phone')
          .where('campaign_id', '=', s.birthdayCampaignId)
          .where('sent_at', '=', now)
          .execute();
        for (const phone of s.phones)
          assert.ok(
            rows.some((r) => r.phone === phone),
            'greeting row written in the same transaction',
          );
        if (s.birthdayCampaignId === campaignId) calls.push(s);
      };
      const run = async () => {
        calls.length = 0;
        const result = await runBirthdays(t.service.store, now, send);
        assert.deepEqual(result.failures, []);
        return calls.map((c) => [c.message, [...c.phones].sort()]).sort();
      };
      return { calls, send, run };
    }

    async function listWith(rows: [string, string, string][], caller = call): Promise<number> {
      const reply = await caller('newCL', {
        cl: {
          name: 'Birthdays',
          destinations: { destination: rows.map(([phone, df1, df2]) => ({ phone, df1, df2 })) },
        },
      });
      assert.equal(reply.status, 0);
      return reply.id;
    }

    async function campaign(listId: number, extra: Record<string, unknown> = {}, caller = call): Promise<number> {
      const reply = await caller('new_birthday_campaign', {
        cl_id: listId,
        name: 'Happy',
        message: 'Happy birthday [DYNAMIC_FIELD1]!',
        source: 'Shop',
        hour: 9,
        dob_field: 'df2',
        ...extra,
      });
      assert.equal(reply.status, 0, JSON.stringify(reply));
      return reply.id;
    }

    // The tests move the clock years ahead: tokens must outlive that.
    async function account(username: string, extra: string[] = []) {
      await t.account(username, extra);
      const lines = await t.admin('create-token', username, '--expires-in', '3650d');
      return { username, token: lines[lines.length - 1] };
    }

    before(async () => {
      t = await startTestService(target, { clock: () => now });
      token = (await account('bday')).token;
      await t.admin('verify-sender', 'bday', 'Shop');
    });
    after(() => t.close());

    it('new_birthday_campaign: 988 unknown or foreign list, 515 unverified source, 2 bad hour or field, 989 long name', async () => {
      const other = await account('bdayother');
      const foreign = await listWith(
        [['0501000001', 'x', '01/01']],
        as('bdayother', () => other.token),
      );
      const listId = await listWith([['0501000001', 'x', '01/01']]);
      const base = { cl_id: listId, name: 'B', message: 'Hi', source: 'Shop', hour: 9, dob_field: 'df2' };
      const status = async (doc: Record<string, unknown>) =>
        (await call('new_birthday_campaign', { ...base, ...doc })).status;
      assert.equal(await status({ cl_id: foreign }), 988);
      assert.equal(await status({ cl_id: 987654 }), 988);
      assert.equal(await status({ source: 'Nobody' }), 515);
      assert.equal(await status({ hour: 24 }), 2);
      assert.equal(await status({ hour: -1 }), 2);
      assert.equal(await status({ dob_field: 'df7' }), 2);
      assert.equal(await status({ name: 'n'.repeat(51) }), 989);
      assert.equal(await status({ message: undefined }), 2);
      assert.equal(await status({ dob_field: 'DF3', hour: '0' }), 0);
      assert.equal(await status({ dob_field: undefined, hour: undefined }), 0);
      const list = (await call('get_birthday_campaigns', {})).campaigns.filter((c: any) => c.cl_id === listId);
      assert.deepEqual(
        list.map((c: any) => [c.dob_field, c.hour, c.active]),
        [
          ['df3', 0, 1],
          ['df1', 9, 1],
        ],
      );
      assert.match(list[0].date, /^\d\d\/\d\d\/\d\d \d\d:\d\d$/);
      assert.deepEqual((await as('bdayother', () => other.token)('get_birthday_campaigns', {})).campaigns, []);
    });

    it('edit_birthday_campaign changes message, hour, source, active; 977 for unknown or foreign ids', async () => {
      const id = await campaign(await listWith([['0501000001', 'x', '01/01']]));
      const edited = await call('edit_birthday_campaign', { id, message: 'New text', hour: 11, active: 0 });
      assert.deepEqual([edited.status, edited.id], [0, id]);
      const row = (await call('get_birthday_campaigns', {})).campaigns.find((c: any) => c.id === id);
      assert.deepEqual([row.message, row.hour, row.active, row.source], ['New text', 11, 0, 'Shop']);
      assert.equal((await call('edit_birthday_campaign', { id, source: 'Nobody' })).status, 515);
      assert.equal((await call('edit_birthday_campaign', { id })).status, 2);
      assert.equal((await call('edit_birthday_campaign', { message: 'x' })).status, 2);
      assert.equal((await call('edit_birthday_campaign', { id: 999_999, message: 'x' })).status, 977);
      const other = await account('bdayedit');
      const theirs = await as('bdayedit', () => other.token)('edit_birthday_campaign', { campaign_id: id, active: 1 });
      assert.equal(theirs.status, 977);
      assert.equal((await call('get_birthday_campaigns', {})).campaigns.find((c: any) => c.id === id).active, 0);
    });

    it('speaks XML and honours dry-run (nothing stored)', async () => {
      const listId = await listWith([['0501000001', 'x', '01/01']]);
      const user = '<user><username>bday</username></user>';
      const created = await t.post(
        `<new_birthday_campaign>${user}<cl_id>${listId}</cl_id><name>Xml</name><message>Hi [df1]</message><source>Shop</source><hour>8</hour><dob_field>df2</dob_field></new_birthday_campaign>`,
        { contentType: 'application/xml', token },
      );
      assert.equal(xmlStatus(created.text), 0, created.text);
      const listed = await t.post(`<get_birthday_campaigns>${user}</get_birthday_campaigns>`, {
        contentType: 'application/xml',
        token,
      });
      assert.match(listed.text, /<campaigns><campaign><id>\d+<\/id>/);
      assert.match(listed.text, /<name>Xml<\/name><cl_id>\d+<\/cl_id><message>Hi \[df1\]<\/message>/);
      const before = (await call('get_birthday_campaigns', {})).campaigns;
      const dry = await call(
        'new_birthday_campaign',
        { cl_id: listId, name: 'Dry', message: 'x', source: 'Shop' },
        true,
      );
      assert.equal(dry.status, 0);
      assert.equal((await call('edit_birthday_campaign', { id: before[0].id, message: 'dry' }, true)).status, 0);
      assert.deepEqual((await call('get_birthday_campaigns', {})).campaigns, before);
    });

    it('edit_birthday_campaign in XML: 0 with the id, changes seen in get_birthday_campaigns; 977, 515, 2; dry-run changes nothing', async () => {
      const user = '<user><username>bday</username></user>';
      const xml = (body: string, dryRun = false) => t.post(body, { contentType: 'application/xml', token, dryRun });
      const id = await campaign(await listWith([['0501000001', 'x', '01/01']]));
      const edit = (fields: string, dryRun = false) =>
        xml(`<edit_birthday_campaign>${user}${fields}</edit_birthday_campaign>`, dryRun);
      const edited = await edit(
        `<id>${id}</id><message>מזל טוב [df1]</message><hour>10</hour><source>Shop</source><active>0</active>`,
      );
      assert.match(
        edited.text,
        new RegExp(
          `^<\\?xml version="1.0" encoding="UTF-8"\\?><edit_birthday_campaign><status>0</status><message>[^<]+</message><id>${id}</id></edit_birthday_campaign>$`,
        ),
      );
      const listed = await xml(`<get_birthday_campaigns>${user}</get_birthday_campaigns>`);
      assert.match(
        listed.text,
        new RegExp(`<campaign><id>${id}</id><name>Happy</name><cl_id>\\d+</cl_id><message>מזל טוב \\[df1\\]</message>`),
      );
      const row = (await call('get_birthday_campaigns', {})).campaigns.find((c: any) => c.id === id);
      assert.deepEqual([row.message, row.hour, row.active, row.source], ['מזל טוב [df1]', 10, 0, 'Shop']);
      assert.equal(xmlStatus((await edit(`<campaign_id>${id}</campaign_id><active>1</active>`)).text), 0);
      assert.equal(xmlStatus((await edit(`<id>${id}</id><active>1</active><hour>11</hour>`, true)).text), 0);
      assert.equal(xmlStatus((await edit('<id>999999</id><message>x</message>')).text), 977);
      assert.equal(xmlStatus((await edit(`<id>${id}</id><source>Nobody</source>`)).text), 515);
      assert.equal(xmlStatus((await edit(`<id>${id}</id>`)).text), 2);
      assert.equal(xmlStatus((await edit(`<id>${id}</id><hour>25</hour>`)).text), 2);
      const after = (await call('get_birthday_campaigns', {})).campaigns.find((c: any) => c.id === id);
      assert.deepEqual([after.message, after.hour, after.active, after.source], ['מזל טוב [df1]', 10, 1, 'Shop']);
    });

    it("greets today's birthdays once the hour has come, once: not again the same day, again next year", async () => {
      const listId = await listWith([
        ['0501000001', 'Dana', '14/03'],
        ['0501000002', 'Avi', '14/03/1990'],
        ['0501000003', 'Noa', '4/3'],
        ['0501000004', 'Eli', '14.3.1985'],
        ['0501000005', 'Ron', '15/03'],
        ['0501000006', 'Gil', ''],
        ['0501000007', 'Tal', '14/031'],
      ]);
      const id = await campaign(listId);
      const { run } = recorder(id);
      const greeted2026 = [
        ['Happy birthday Avi!', ['972501000002']],
        ['Happy birthday Dana!', ['972501000001']],
        ['Happy birthday Eli!', ['972501000004']],
      ];
      now = il(3, 14, 8, 59);
      assert.deepEqual(await run(), []);
      now = il(3, 14, 9, 0);
      assert.deepEqual(await run(), greeted2026);
      now = il(3, 14, 9, 1);
      assert.deepEqual(await run(), []);
      now = il(3, 14, 10, 30);
      assert.deepEqual(await run(), []);
      // Every campaign was examined today and no list changed since: a run reads no contacts at all.
      assert.equal((await runBirthdays(t.service.store, now, async () => assert.fail('no send expected'))).checked, 0);
      // A contact added later the same day is greeted on the next run, alone.
      assert.equal(
        (
          await call('addNumCL', {
            cl: { id: listId },
            destinations: { destination: { phone: '0501000008', df1: 'Mor', df2: '14/03/2001' } },
          })
        ).status,
        0,
      );
      now = il(3, 14, 11, 0);
      assert.deepEqual(await run(), [['Happy birthday Mor!', ['972501000008']]]);
      // Removed and added again (a new contact row): already greeted this year, not greeted twice.
      assert.equal(
        (await call('rmNumCL', { cl: { id: listId }, destinations: { destination: { phone: '0501000001' } } })).status,
        0,
      );
      assert.equal(
        (
          await call('addNumCL', {
            cl: { id: listId },
            destinations: { destination: { phone: '0501000001', df1: 'Dana', df2: '14/03' } },
          })
        ).status,
        0,
      );
      now = il(3, 14, 23, 59);
      assert.deepEqual(await run(), []);
      now = il(3, 15, 9, 0);
      assert.deepEqual(await run(), [['Happy birthday Ron!', ['972501000005']]]);
      now = il(3, 14, 9, 0, 2027);
      assert.deepEqual(await run(), [...greeted2026, ['Happy birthday Mor!', ['972501000008']]].sort());
      assert.deepEqual(await run(), []);
      const sends = await t.service.store.db
        .selectFrom('birthday_sends')
        .select(['year'])
        .where('campaign_id', '=', id)
        .execute();
      assert.equal(sends.length, 9);
    });

    it('one send per distinct text; inactive campaigns send nothing; 29 February is greeted on the 28th in other years', async () => {
      const listId = await listWith([
        ['0502000001', 'A', '28/02'],
        ['0502000002', 'B', '29/02/2000'],
        ['0502000003', 'C', '28/2/1999'],
      ]);
      const id = await campaign(listId, { message: 'Happy birthday from Shop', hour: 7 });
      const { run } = recorder(id);
      now = il(2, 28, 7, 0, 2027);
      assert.deepEqual(await run(), [['Happy birthday from Shop', ['972502000001', '972502000002', '972502000003']]]);
      assert.equal((await call('edit_birthday_campaign', { id, active: 0 })).status, 0);
      now = il(2, 28, 7, 0, 2028);
      assert.deepEqual(await run(), []);
      assert.equal((await call('edit_birthday_campaign', { id, active: '1' })).status, 0);
      assert.deepEqual(await run(), [['Happy birthday from Shop', ['972502000001', '972502000003']]]);
      now = il(2, 29, 7, 0, 2028);
      assert.deepEqual(await run(), [['Happy birthday from Shop', ['972502000002']]]);
    });

    it("uses the account's time zone for the day and the hour", async () => {
      const ny = await account('bdayny', ['--time-zone', 'America/New_York']);
      await t.admin('verify-sender', 'bdayny', 'Shop');
      const nyCall = as('bdayny', () => ny.token);
      const id = await campaign(await listWith([['0503000001', 'Sam', '20/06']], nyCall), {}, nyCall);
      const { run } = recorder(id);
      now = il(6, 20, 9, 0); // 02:00 in New York
      assert.deepEqual(await run(), []);
      now = local('America/New_York', 2026, 6, 20, 9, 0);
      assert.deepEqual(await run(), [['Happy birthday Sam!', ['972503000001']]]);
      now = local('America/New_York', 2026, 6, 20, 23, 30); // already 21/06 in Israel: still the 20th in New York
      assert.deepEqual(await run(), []);
    });

    it('a failing send rolls back its greeting rows and is retried on the next run', async () => {
      const id = await campaign(await listWith([['0504000001', 'Fay', '01/08']]));
      now = il(8, 1, 9, 0);
      const failing: BirthdaySender = async (_db, s) => {
        if (s.birthdayCampaignId === id) throw new Error('no credit');
      };
      const result = await runBirthdays(t.service.store, now, failing);
      assert.deepEqual(
        result.failures.map((f) => [f.campaignId, (f.error as Error).message]),
        [[id, 'no credit']],
      );
      const rows = await t.service.store.db
        .selectFrom('birthday_sends')
        .select('id')
        .where('campaign_id', '=', id)
        .execute();
      assert.equal(rows.length, 0);
      now = il(8, 1, 9, 1);
      assert.deepEqual(await recorder(id).run(), [['Happy birthday Fay!', ['972504000001']]]);
    });

    it('birthdayComponent runs at start and stops cleanly (no timers left)', async () => {
      const id = await campaign(await listWith([['0505000001', 'Kim', '02/09']]));
      const { calls, send } = recorder(id);
      now = il(9, 2, 12, 0);
      const component = birthdayComponent(send, 3_600_000);
      const service = { store: t.service.store, clock: () => now, logger: t.service.logger } as unknown as Service;
      await component.start(service);
      await component.stop();
      assert.deepEqual(
        calls.map((c) => [c.message, c.phones, c.campaignName, c.source]),
        [['Happy birthday Kim!', ['972505000001'], 'Happy', 'Shop']],
      );
    });
  });
}

describe('parseDayMonth', () => {
  it('reads dd/mm and dd/mm/yyyy (also d/m, yy, . and -) and refuses impossible dates', () => {
    assert.deepEqual(parseDayMonth('14/03'), { day: 14, month: 3 });
    assert.deepEqual(parseDayMonth(' 4/3/1990 '), { day: 4, month: 3 });
    assert.deepEqual(parseDayMonth('29.02.00'), { day: 29, month: 2 });
    assert.deepEqual(parseDayMonth('01-12-2001'), { day: 1, month: 12 });
    for (const bad of ['', null, '31/04', '00/01', '14/13', '14/031', '1990-03-14', 'soon'])
      assert.equal(parseDayMonth(bad), undefined, String(bad));
  });
});
