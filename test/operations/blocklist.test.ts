// The blocklist over real HTTP on every store: 946, 933, 944, masking, the blacklist window (2 when
// from/to are missing), tenant scoping, XML, dry-run, and the store functions the send path and push use.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fromZoned } from '../../src/domain/dates.ts';
import { addToBlocklist, blockedAmong, isBlocked, removeFromBlocklist } from '../../src/store/blocklist.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';

const xmlStatus = (text: string) => Number(/<status>(-?\d+)<\/status>/.exec(text)?.[1]);
const ZONE = 'Asia/Jerusalem';
const at = (day: number, hour: number, minute = 0, second = 0) =>
  fromZoned({ year: 2026, month: 3, day, hour, minute, second }, ZONE);

const targets = await storeTargets();
for (const target of targets) {
  describe(`blocklist (${target.name})`, () => {
    let t: TestService;
    let token: string;
    let otherToken: string;
    let now = at(10, 9);
    const call = (root: string, doc: Record<string, unknown>, dryRun = false) =>
      t.api(root, { user: { username: 'blocker' }, ...doc }, { token, dryRun });
    const listed = async (from = '01/01/26 00:00', to = '31/12/26 23:59') =>
      (await call('blacklist', { from, to })).transactions;

    before(async () => {
      t = await startTestService(target, { clock: () => now });
      token = (await t.account('blocker')).token;
      otherToken = (await t.account('blockother')).token;
    });
    after(() => t.close());

    it('addNumBL adds numbers and answers 946; adding them again is still 946 and adds nothing', async () => {
      now = at(10, 9, 30, 15);
      const reply = await call('addNumBL', { phones: { phone: ['0501111111', '+972 52-222-2222', '501111111'] } });
      assert.equal(reply.status, 946);
      assert.equal(reply.message, 'Numbers successfully added to blacklist');
      assert.deepEqual([reply.added, reply.already_listed], [2, 0]);
      now = at(11, 8);
      const again = await call('addNumBL', { phones: { phone: '0501111111' } });
      assert.deepEqual([again.status, again.added, again.already_listed], [946, 0, 1]);
      assert.deepEqual(await listed(), [
        { phone: '5********', date: '10/03/26 09:30' },
        { phone: '5********', date: '10/03/26 09:30' },
      ]);
    });

    it('addNumBL with an invalid number answers 933 naming it and adds nothing', async () => {
      const before = await listed();
      const reply = await call('addNumBL', { phones: { phone: ['0503333333', '12', 'phone'] } });
      assert.equal(reply.status, 933);
      assert.match(reply.message, /12, phone/);
      assert.deepEqual(reply.errors, [
        { phone: '12', reason: 'too_short' },
        { phone: 'phone', reason: 'invalid' },
      ]);
      assert.deepEqual(await listed(), before);
      assert.equal((await call('addNumBL', {})).status, 2);
    });

    it('blacklist answers 2 when from or to is missing, 2 for a malformed date', async () => {
      for (const doc of [
        { from: '01/03/26 00:00' },
        { to: '01/03/26 00:00' },
        {},
        { from: '', to: '01/03/26 00:00' },
      ]) {
        const reply = await call('blacklist', doc);
        assert.equal(reply.status, 2, JSON.stringify(doc));
        assert.match(reply.message, /from|to/);
      }
      assert.equal((await call('blacklist', { from: '2026-03-01', to: '01/04/26 00:00' })).status, 2);
    });

    it('answers a missing field before a malformed date, naming it (blacklist, dlrByDate, incoming, dlr)', async () => {
      for (const root of ['blacklist', 'dlrByDate', 'incoming']) {
        const missing = await call(root, { from: 'soon' });
        assert.deepEqual([missing.status, missing.message], [2, 'Missing required field: to'], root);
        const malformed = await call(root, { from: '01/03/26 00:00', to: '32/03/26 00:00' });
        assert.deepEqual(
          [malformed.status, malformed.message],
          [2, 'Invalid value for field to: expected dd/mm/yy hh:mm, got "32/03/26 00:00"'],
          root,
        );
        const both = await call(root, { from: 'soon', to: 'later' });
        assert.equal(both.message, 'Invalid value for field from: expected dd/mm/yy hh:mm, got "soon"', root);
      }
      // dlr checks its ids once every field is there, before its window.
      assert.equal((await call('dlr', { to: 'later' })).message, 'Missing required field: from');
      const noIds = await call('dlr', { from: 'soon', to: 'later' });
      assert.deepEqual([noIds.status, noIds.message], [2, 'Missing required field: transactions.external_id']);
      const ids = { external_id: 'a1' };
      assert.match((await call('dlr', { ...ids, from: 'soon', to: 'later' })).message, /field from: .*"soon"/);
    });

    it('blacklist lists only entries blocked in the window (account time zone; to includes its minute)', async () => {
      now = at(12, 14, 5, 59);
      assert.equal((await call('addNumBL', { phones: { phone: '0544444444' } })).status, 946);
      assert.deepEqual(await listed('12/03/26 14:05', '12/03/26 14:05'), [
        { phone: '5********', date: '12/03/26 14:05' },
      ]);
      assert.deepEqual(await listed('12/03/26 14:06', '13/03/26 00:00'), []);
      assert.deepEqual(await listed('11/03/26 00:00', '12/03/26 14:04'), []);
      const reply = await call('blacklist', { from: '12/03/2026 00:00', to: '12/03/2026 23:59' });
      assert.equal(reply.status, 0);
      assert.equal(reply.transactions.length, 1);
    });

    it('blocklists are per account', async () => {
      const reply = await t.api(
        'blacklist',
        { user: { username: 'blockother' }, from: '01/01/26 00:00', to: '31/12/26 23:59' },
        { token: otherToken },
      );
      assert.equal(reply.status, 0);
      assert.deepEqual(reply.transactions, []);
      const rm = await t.api(
        'rmNumBL',
        { user: { username: 'blockother' }, phones: { phone: '0501111111' } },
        { token: otherToken },
      );
      assert.equal(rm.status, 944);
      assert.equal((await listed()).length, 3);
    });

    it('rmNumBL answers 0 when every number was removed and 944 with counts when some were not listed', async () => {
      await call('addNumBL', { phones: { phone: ['0505555555', '0506666666', '0507777777'] } });
      const all = await call('rmNumBL', {
        phones: { phone: ['0505555555', '0506666666'] },
        reason: 'asked to be back',
      });
      assert.deepEqual([all.status, all.deleted, all.not_in_blacklist], [0, 2, 0]);
      assert.equal(all.message, '2 numbers deleted, 0 numbers not in blacklist');
      const some = await call('rmNumBL', {
        phones: { phone: ['0507777777', '0508888888', '0509999999'] },
        reason: 'cleanup',
      });
      assert.deepEqual([some.status, some.deleted, some.not_in_blacklist], [944, 1, 2]);
      assert.equal(some.message, '1 numbers deleted, 2 numbers not in blacklist');
      const bad = await call('rmNumBL', { phones: { phone: ['0501111111', '0'] } });
      assert.equal(bad.status, 933);
      assert.equal(await isBlocked(t.service.store.db, await t.accountId('blocker'), '972501111111'), true);
      const log = await t.service.store.db
        .selectFrom('blocklist_removals')
        .select(['phone', 'reason', 'source'])
        .orderBy('id')
        .execute();
      assert.deepEqual(
        log.map((r) => [r.phone, r.reason, r.source]),
        [
          ['972505555555', 'asked to be back', 'api'],
          ['972506666666', 'asked to be back', 'api'],
          ['972507777777', 'cleanup', 'api'],
        ],
      );
    });

    it('speaks XML: addNumBL (946), blacklist transactions, rmNumBL (944)', async () => {
      const user = '<user><username>blocker</username></user>';
      const add = await t.post(
        `<?xml version="1.0"?><addNumBL>${user}<phones><phone>0531231234</phone><phone>0531231235</phone></phones></addNumBL>`,
        {
          contentType: 'application/xml',
          token,
        },
      );
      assert.equal(xmlStatus(add.text), 946, add.text);
      const list = await t.post(`<blacklist>${user}<from>12/03/26 14:05</from><to>12/03/26 14:05</to></blacklist>`, {
        contentType: 'application/xml',
        token,
      });
      assert.equal(xmlStatus(list.text), 0);
      assert.match(list.text, /<message>3 blocked numbers<\/message>/);
      assert.match(
        list.text,
        /<transactions><transaction><phone>5\*{8}<\/phone><date>\d\d\/\d\d\/\d\d \d\d:\d\d<\/date><\/transaction>/,
      );
      const rm = await t.post(
        `<rmNumBL>${user}<phones><phone>0531231234</phone><phone>0539999999</phone></phones><reason>test</reason></rmNumBL>`,
        {
          contentType: 'application/xml',
          token,
        },
      );
      assert.equal(xmlStatus(rm.text), 944);
      assert.match(rm.text, /<message>1 numbers deleted, 1 numbers not in blacklist<\/message>/);
      assert.match(rm.text, /<deleted>1<\/deleted><not_in_blacklist>1<\/not_in_blacklist>/);
    });

    it('dry-run answers 946 / 0 like the real calls and leaves the blocklist as it was', async () => {
      const before = await listed();
      const add = await call('addNumBL', { phones: { phone: '0521212121' } }, true);
      assert.deepEqual([add.status, add.added], [946, 1]);
      const rm = await call('rmNumBL', { phones: { phone: '0501111111' } }, true);
      assert.deepEqual([rm.status, rm.deleted], [0, 1]);
      assert.deepEqual(await listed(), before);
    });

    it('store: addToBlocklist returns only new numbers and records source and time; blockedAmong chunks big lists', async () => {
      const db = t.service.store.db;
      const id = await t.accountId('blockother');
      const phones = Array.from({ length: 1200 }, (_, i) => `97254${String(i).padStart(7, '0')}`);
      assert.equal((await addToBlocklist(db, id, phones.slice(0, 700), 'unsubscribe-link', 1000)).length, 700);
      const added = await addToBlocklist(
        db,
        id,
        [phones[0], ...phones.slice(700), phones[1299 % 1200]],
        'reply-stop',
        2000,
      );
      assert.deepEqual(added, phones.slice(700));
      const probe = [...phones, '972599999999', '972599999998'];
      const blocked = await blockedAmong(db, id, probe);
      assert.equal(blocked.size, 1200);
      assert.equal(blocked.has('972599999999'), false);
      const rows = await db
        .selectFrom('blocklist')
        .select(['source', 'created_at'])
        .where('account_id', '=', id)
        .where('phone', 'in', [phones[0], phones[900]])
        .orderBy('phone')
        .execute();
      assert.deepEqual(
        rows.map((r) => [r.source, Number(r.created_at)]),
        [
          ['unsubscribe-link', 1000],
          ['reply-stop', 2000],
        ],
      );
      assert.deepEqual(await removeFromBlocklist(db, id, [phones[5], '972599999999'], null, 3000), [phones[5]]);
      assert.equal(await isBlocked(db, id, phones[5]), false);
      assert.equal(await isBlocked(db, id, phones[6]), true);
    });
  });
}
