// Password authentication for older integrations, over real HTTP(S) on every store: off, a password is ignored
// (3); on, `<user><username/><password/></user>` authenticates over HTTPS in JSON and XML, never over plain HTTP;
// a wrong password is 3, five in a row lock it (511) while the right one is refused too; a bearer token wins; a
// changed password or the switch turned off takes effect at once despite the verification cache.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { xmlStatus } from '../operations/send-helpers.ts';

const targets = await storeTargets();
for (const target of targets) {
  describe(`legacy password authentication (${target.name})`, () => {
    let t: TestService;
    let token: string;
    const balance = (password: string, o: { https?: boolean; token?: string; username?: string } = {}) =>
      t.api(
        'balance',
        { user: { username: o.username ?? 'oldclient', password } },
        { https: o.https ?? true, token: o.token },
      );

    before(async () => {
      t = await startTestService(target);
      token = (await t.account('oldclient')).token;
      await t.account('lockme');
    });
    after(() => t.close());

    it('is off by default: a password instead of a token is 3', async () => {
      const r = await balance('secret-pw');
      assert.equal(r.status, 3);
      assert.match(r.message, /password authentication is off for this account; use a bearer token/);
    });

    it('on, authenticates by username and password over HTTPS, in JSON and XML', async () => {
      assert.deepEqual(await t.admin('legacy-password', 'oldclient', 'on'), [
        'password authentication (without a bearer token, over HTTPS only) for oldclient: on',
      ]);
      const r = await balance('secret-pw');
      assert.deepEqual([r.status, r.balance], [0, '1000']);
      const xml = await t.post(
        '<balance><user><username>oldclient</username><password>secret-pw</password></user></balance>',
        { contentType: 'application/xml', https: true },
      );
      assert.equal(xmlStatus(xml.text), 0, xml.text);
      const again = await balance('secret-pw');
      assert.equal(again.status, 0, 'and again, from the verification cache');
    });

    it('refuses plain HTTP, and lets a bearer token win over a wrong password', async () => {
      const plain = await balance('secret-pw', { https: false });
      assert.equal(plain.status, 3);
      assert.match(plain.message, /accepted only over HTTPS/);
      assert.equal((await balance('wrong-password', { token })).status, 0);
    });

    it('answers a wrong password 3 and locks after five in a row (511), the right one included', async () => {
      await t.admin('legacy-password', 'lockme', 'on');
      for (let i = 0; i < 4; i++) assert.equal((await balance(`nope-${i}`, { username: 'lockme' })).status, 3);
      const fifth = await balance('nope-5', { username: 'lockme' });
      assert.equal(fifth.status, 3);
      assert.match(fifth.message, /now locked for 15 minutes/);
      const locked = await balance('secret-pw', { username: 'lockme' });
      assert.equal(locked.status, 511);
      assert.match(locked.message, /password authentication is locked for 15 more minutes after 5 wrong passwords/);
      await t.admin('legacy-password', 'lockme', 'on');
      assert.equal(
        (await balance('secret-pw', { username: 'lockme' })).status,
        0,
        'the operator turning it on again lifts the lockout',
      );
    });

    it('drops a remembered password when it changes or the switch goes off', async () => {
      assert.equal((await balance('secret-pw')).status, 0);
      await t.admin('set-password', 'oldclient', '--password', 'rotated-pw');
      assert.equal((await balance('secret-pw')).status, 3, 'the old password, though remembered, no longer works');
      assert.equal((await balance('rotated-pw')).status, 0);
      await t.admin('legacy-password', 'oldclient', 'off');
      assert.equal((await balance('rotated-pw')).status, 3);
    });

    it('counts every such call in the metrics, by outcome', async () => {
      const text = await t.service.metrics.registry.getSingleMetricAsString('yona_legacy_password_requests_total');
      for (const result of ['ok', 'off', 'plain-http', 'wrong', 'locked'])
        assert.match(text, new RegExp(`result="${result}"} [1-9]`), result);
    });
  });
}
