// push_url over real HTTP on every store: 517 keeps the first URL, non-public URLs refused (status 2), the
// status extension (JSON and XML), dry-run, the admin push commands, and what recordPushEvent stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dlrFields, incomingFields } from '../../src/domain/push-fields.ts';
import { findAccountByUsername } from '../../src/store/accounts.ts';
import { recordPushEvent } from '../../src/store/push.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';

const REFUSED = [
  'http://127.0.0.1/hook',
  'http://127.1:8080/hook',
  'http://2130706433/',
  'http://10.1.2.3/',
  'http://172.16.0.9/',
  'https://192.168.1.1/x',
  'http://169.254.169.254/latest/meta-data',
  'http://100.64.0.1/',
  'http://0.0.0.0/',
  'http://224.0.0.1/',
  'http://192.0.2.10/',
  'http://198.18.0.1/',
  'http://[::1]/',
  'http://[::]/',
  'http://[fe80::1]/',
  'http://[fd00::1]/',
  'http://[fc12:3456::1]/',
  'http://[ff02::1]/',
  'http://[2001:db8::1]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:10.0.0.1]/',
  'http://[64:ff9b::a00:1]/',
  'http://[2002:c0a8:101::1]/',
  'http://localhost:8080/hook',
  'http://api.localhost/',
];

const targets = await storeTargets();
for (const target of targets) {
  describe(`push_url (${target.name})`, () => {
    let t: TestService;
    let token: string;
    let otherToken: string;
    const call = (doc: Record<string, unknown>, dryRun = false) =>
      t.api('push_url', { user: { username: 'pushop' }, ...doc }, { token, dryRun });
    const accountId = async (username: string) => (await findAccountByUsername(t.service.store.db, username))!.id;
    const eventsOf = async (type: string) => {
      const rows = await t.service.store.db
        .selectFrom('push_events')
        .select(['id', 'state'])
        .where('account_id', '=', await accountId('pushop'))
        .where('type', '=', type as 'dlr')
        .orderBy('id')
        .execute();
      return rows;
    };

    before(async () => {
      t = await startTestService(target);
      token = (await t.account('pushop')).token;
      otherToken = (await t.account('pushother')).token;
    });
    after(() => t.close());

    it('registers one URL per type; a second for the same type is 517 and the first stays', async () => {
      const first = await call({ type: 'dlr', url: 'https://hooks.example.com/dlr' });
      assert.equal(first.status, 0, JSON.stringify(first));
      assert.match(first.message, /added/);
      const second = await call({ type: 'dlr', url: 'https://other.example.com/dlr' });
      assert.equal(second.status, 517);
      assert.match(second.message, /already registered/);
      const incoming = await call({ type: 'incoming_sms', url: 'http://hooks.example.com/in?key=1' });
      assert.equal(incoming.status, 0);
      const status = await call({ action: 'status' });
      assert.equal(status.status, 0);
      assert.deepEqual(
        status.registrations.map((r: any) => [r.type, r.url, r.state]),
        [
          ['dlr', 'https://hooks.example.com/dlr', 'registered'],
          ['incoming_sms', 'http://hooks.example.com/in?key=1', 'registered'],
        ],
      );
    });

    it('refuses loopback, private, link-local, CGNAT, multicast, documentation, ULA and mapped addresses with status 2', async () => {
      for (const url of REFUSED) {
        const reply = await call({ type: 'blacklist', url });
        assert.equal(reply.status, 2, `${url}: ${JSON.stringify(reply)}`);
        assert.match(reply.message, /^Invalid value for field url: .*(public|this machine)/, url);
      }
      assert.equal((await call({ action: 'status', type: 'blacklist' })).registrations.length, 0);
    });

    it('checks the request: missing fields, unknown type, scheme, action', async () => {
      assert.deepEqual(await call({ url: 'https://hooks.example.com/' }), {
        status: 2,
        message: 'Missing required field: type',
      });
      assert.deepEqual(await call({ type: 'blacklist' }), { status: 2, message: 'Missing required field: url' });
      const badType = await call({ type: 'sms', url: 'https://hooks.example.com/' });
      assert.equal(badType.status, 2);
      assert.match(
        badType.message,
        /Invalid value for field type: "sms" \(use one of dlr, incoming_sms, blacklist, dlr_whatsapp, incoming_whatsapp\)/,
      );
      for (const url of [
        'ftp://hooks.example.com/',
        'hooks.example.com/x',
        'javascript:alert(1)',
        `https://e.com/${'a'.repeat(2001)}`,
      ]) {
        const reply = await call({ type: 'blacklist', url });
        assert.equal(reply.status, 2, url);
        assert.match(reply.message, /^Invalid value for field url: /);
      }
      assert.equal((await call({ action: 'remove', type: 'dlr' })).status, 502);
    });

    it('dry-run answers alike and registers nothing', async () => {
      const reply = await call({ type: 'dlr_whatsapp', url: 'https://hooks.example.com/wa' }, true);
      assert.equal(reply.status, 0);
      assert.equal((await call({ action: 'status', type: 'dlr_whatsapp' })).registrations.length, 0);
    });

    it('status is per account and reads in XML too', async () => {
      const other = await t.api(
        'push_url',
        { user: { username: 'pushother' }, action: 'status' },
        { token: otherToken },
      );
      assert.deepEqual(other.registrations, []);
      const xml = await t.post(
        '<push_url><user><username>pushop</username></user><action>status</action><type>dlr</type></push_url>',
        {
          token,
          contentType: 'application/xml',
        },
      );
      assert.match(xml.text, /<status>0<\/status>/);
      assert.match(
        xml.text,
        /<registrations><registration><type>dlr<\/type><url>https:\/\/hooks.example.com\/dlr<\/url><state>registered<\/state><consecutive_failures>0<\/consecutive_failures>/,
      );
      assert.match(xml.text, /<pending_events>0<\/pending_events>/);
    });

    it('recordPushEvent stores events only for a registered type, keeps them for a disabled one, supersedes late intermediates', async () => {
      const id = await accountId('pushop');
      const db = t.service.store.db;
      const now = Date.now();
      const none = await db.transaction().execute((trx) =>
        recordPushEvent(trx, {
          accountId: id,
          type: 'blacklist',
          fields: { dest: '972501234567', message: 'x', date: '01/01/25 10:00:00' },
          now,
        }),
      );
      assert.equal(none, null);
      assert.equal((await eventsOf('blacklist')).length, 0);
      const dlr = (status: number) =>
        dlrFields({
          externalId: 'e1',
          status,
          date: now,
          phone: '972501234567',
          operator: 'Cellcom',
          shipmentId: 7,
          timeZone: 'Asia/Jerusalem',
        });
      const ids = await db
        .transaction()
        .execute(async (trx) => [
          await recordPushEvent(trx, { accountId: id, type: 'dlr', fields: dlr(-1), orderKey: 'm1', now }),
          await recordPushEvent(trx, { accountId: id, type: 'dlr', fields: dlr(102), orderKey: 'm1', now }),
          await recordPushEvent(trx, { accountId: id, type: 'dlr', fields: dlr(-1), orderKey: 'm1', now }),
        ]);
      assert.ok(ids.every((x) => typeof x === 'number'));
      assert.deepEqual(
        (await eventsOf('dlr')).map((r) => r.state),
        ['pending', 'pending', 'superseded'],
      );
      const status = await call({ action: 'status', type: 'dlr' });
      assert.equal(status.registrations[0].pending_events, 2);
      // A rolled-back transaction leaves nothing behind.
      await assert.rejects(
        db.transaction().execute(async (trx) => {
          await recordPushEvent(trx, {
            accountId: id,
            type: 'incoming_sms',
            fields: incomingFields({
              phone: '972501234567',
              dest: '0501111111',
              message: 'hi',
              date: now,
              timeZone: 'UTC',
            }),
            now,
          });
          throw new Error('rollback');
        }),
      );
      assert.equal((await eventsOf('incoming_sms')).length, 0);
    });

    it('addNumBL queues one blacklist event per newly blocked number, in the same transaction', async () => {
      assert.equal((await call({ type: 'blacklist', url: 'https://hooks.example.com/bl' })).status, 0);
      const add = (phones: string[], dryRun = false) =>
        t.api('addNumBL', { user: { username: 'pushop' }, phones: { phone: phones } }, { token, dryRun });
      assert.equal((await add(['0521111111'], true)).status, 946);
      assert.equal((await eventsOf('blacklist')).length, 0, 'dry-run queues nothing');
      assert.equal((await add(['0521111111', '0522222222'])).status, 946);
      assert.equal((await add(['0521111111', '0523333333'])).status, 946);
      const rows = await t.service.store.db
        .selectFrom('push_events')
        .select(['payload', 'state'])
        .where('type', '=', 'blacklist')
        .where('account_id', '=', await accountId('pushop'))
        .orderBy('id')
        .execute();
      assert.deepEqual(
        rows.map((r) => JSON.parse(r.payload).dest),
        ['972521111111', '972522222222', '972523333333'],
      );
      const fields = JSON.parse(rows[0].payload);
      assert.deepEqual(Object.keys(fields), ['dest', 'message', 'date']);
      assert.equal(fields.message, 'המספר הוסר מרשימת התפוצה');
      assert.match(fields.date, /^\d\d\/\d\d\/\d\d \d\d:\d\d:\d\d$/);
      const other = await t.api(
        'addNumBL',
        { user: { username: 'pushother' }, phones: { phone: ['0524444444'] } },
        { token: otherToken },
      );
      assert.equal(other.status, 946);
      assert.equal(
        (await t.service.store.db.selectFrom('push_events').select('id').where('type', '=', 'blacklist').execute())
          .length,
        3,
        'no registration, nothing stored',
      );
    });

    it('admin push list, delete (then a new URL may be registered), enable and secret', async () => {
      const listed = await t.admin('push', 'list', 'pushop');
      assert.match(listed.join('\n'), /^dlr registered https:\/\/hooks.example.com\/dlr failures=0 pending=2/m);
      await assert.rejects(
        t.admin('push', 'enable', 'pushop', 'incoming_whatsapp'),
        /no incoming_whatsapp push registration/,
      );
      assert.match((await t.admin('push', 'enable', 'pushop', 'dlr')).join(''), /already registered/);
      assert.match((await t.admin('push', 'delete', 'pushop', 'dlr')).join(''), /deleted the dlr push registration/);
      assert.deepEqual(
        (await eventsOf('dlr')).map((r) => r.state),
        ['dead', 'dead', 'superseded'],
      );
      assert.equal((await call({ type: 'dlr', url: 'https://new.example.com/dlr' })).status, 0);
      assert.equal((await call({ action: 'status', type: 'dlr' })).registrations[0].url, 'https://new.example.com/dlr');
      const secret = await t.admin('push', 'secret', 'pushop');
      assert.match(secret[1], /^whsec_[\w-]{43}$/);
      assert.equal((await call({ action: 'status', type: 'dlr' })).registrations[0].signed, 1);
      assert.doesNotMatch(JSON.stringify(await call({ action: 'status' })), /whsec_/);
      assert.match((await t.admin('push', 'secret', 'pushop', '--clear')).join(''), /no longer signed/);
      assert.match((await t.admin('push', 'log', 'pushop', 'dlr')).join(''), /no delivery attempts yet/);
      await assert.rejects(t.admin('push', 'list', 'nobody'), /no account named "nobody"/);
      await assert.rejects(t.admin('push', 'frob'), /unknown push command "frob"/);
    });
  });
}
