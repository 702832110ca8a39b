// The customer's own security over HTTPS without a browser, on both stores: changing the password needs the
// current one and signs the account's other sessions out; two-factor sign-in (RFC 6238) is turned on with a
// first code computed here, then needs a code (or a recovery code, once), and is turned off with the password.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { totpCode } from '../../../src/domain/totp.ts';
import { ConsoleClient } from '../../helpers/console-client.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { storeTargets } from '../../helpers/stores.ts';

for (const target of await storeTargets()) {
  describe(`console security (${target.name})`, () => {
    let t: TestService;
    before(async () => {
      t = await startTestService(target);
      await t.admin('create-account', 'noa', '--password', 'noa-pw-123', '--credits', '10');
    });
    after(() => t?.close());

    it('changes the password with the current one, and signs the other sessions out', async () => {
      const here = new ConsoleClient(t.httpsUrl);
      const there = new ConsoleClient(t.httpsUrl);
      await here.login('noa', 'noa-pw-123');
      await there.login('noa', 'noa-pw-123');
      await here.get('/console/security');
      const wrong = await here.post('/console/security/password', {
        current: 'nope',
        new: 'noa-pw-456',
        repeat: 'noa-pw-456',
      });
      assert.equal(wrong.status, 400);
      assert.match(wrong.text, /The current password is wrong/);
      const differ = await here.post('/console/security/password', {
        current: 'noa-pw-123',
        new: 'noa-pw-456',
        repeat: 'noa-pw-789',
      });
      assert.match(differ.text, /The two new passwords differ/);
      const done = await here.post('/console/security/password', {
        current: 'noa-pw-123',
        new: 'noa-pw-456',
        repeat: 'noa-pw-456',
      });
      assert.match(done.location ?? '', /ok=secChanged/);
      assert.equal((await here.get('/console')).status, 200, 'this session stays');
      assert.equal((await there.get('/console')).status, 303, 'the other one is signed out');
      assert.equal((await new ConsoleClient(t.httpsUrl).login('noa', 'noa-pw-123')).status, 401);
      assert.equal((await new ConsoleClient(t.httpsUrl).login('noa', 'noa-pw-456')).status, 303);
    });

    it('turns two-factor on with a computed code; sign-in then needs a code or a recovery code (once)', async () => {
      const web = new ConsoleClient(t.httpsUrl);
      await web.login('noa', 'noa-pw-456');
      await web.get('/console/security');
      const setup = await web.post('/console/security/totp/start');
      const secret = /id="totp-secret">([A-Z2-7 ]+)</.exec(setup.text)![1].replace(/ /g, '');
      const pending = /name="pending" value="([^"]+)"/.exec(setup.text)![1];
      const bad = await web.post('/console/security/totp/confirm', {
        pending,
        code: '000000' === totpCode(secret, Date.now()) ? '111111' : '000000',
      });
      assert.equal(bad.status, 400);
      const on = await web.post('/console/security/totp/confirm', { pending, code: totpCode(secret, Date.now()) });
      assert.match(on.text, /Two-factor sign-in is on/);
      const recovery = [...on.text.matchAll(/<li>([A-Z2-7]{4}-[A-Z2-7]{4})<\/li>/g)].map((m) => m[1]);
      assert.equal(recovery.length, 10);
      const stored = await t.service.store.db
        .selectFrom('accounts')
        .select(['totp_secret', 'totp_recovery'])
        .where('username', '=', 'noa')
        .executeTakeFirstOrThrow();
      assert.ok(
        !String(stored.totp_secret).includes(secret) &&
          !String(stored.totp_recovery).includes(recovery[0].replace('-', '')),
        'neither kept in clear',
      );

      const signIn = async (code?: string) => {
        const c = new ConsoleClient(t.httpsUrl);
        await c.get('/console/login');
        return c.post('/console/login', {
          username: 'noa',
          password: 'noa-pw-456',
          ...(code === undefined ? {} : { code }),
        });
      };
      const without = await signIn();
      assert.equal(without.status, 401);
      assert.match(without.text, /Wrong username, password or two-factor code/);
      assert.equal((await signIn(totpCode(secret, Date.now()))).status, 303);
      assert.equal((await signIn(recovery[3].toLowerCase())).status, 303);
      assert.equal((await signIn(recovery[3])).status, 401, 'a recovery code works once');

      await web.get('/console/security');
      const off = await web.post('/console/security/totp/off', { password: 'noa-pw-456' });
      assert.match(off.location ?? '', /ok=secDisabled/);
      assert.equal((await signIn()).status, 303);
    });
  });
}
