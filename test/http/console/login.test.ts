// Console sign-in over HTTPS, on every store: wrong passwords refused and locked out after five, sessions in
// Secure HttpOnly SameSite cookies kept only as a hash, CSRF refused, sign-out, idle expiry, HTTPS only.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { ConsoleClient } from '../../helpers/console-client.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { storeTargets } from '../../helpers/stores.ts';

for (const target of await storeTargets()) {
  describe(`console sign-in (${target.name})`, () => {
    let t: TestService;
    let now = Date.now();
    before(async () => {
      t = await startTestService(target, { clock: () => now });
      await t.admin('create-account', 'alice', '--password', 'alice-pw-1', '--credits', '10');
      await t.admin('create-account', 'bob', '--password', 'bob-pw-12');
    });
    after(() => t?.close());

    it('refuses a wrong password and an unknown user with the same message', async () => {
      const c = new ConsoleClient(t.httpsUrl);
      const wrong = await c.login('alice', 'not-it');
      assert.equal(wrong.status, 401);
      assert.match(wrong.text, /Wrong username or password/);
      const unknown = await c.login('nobody', 'not-it');
      assert.equal(unknown.status, 401);
      assert.match(unknown.text, /Wrong username or password/);
      assert.equal(c.cookies.has('__Host-yona_session'), false);
    });

    it('signs in with a Secure HttpOnly SameSite cookie whose id is stored only as a hash', async () => {
      const c = new ConsoleClient(t.httpsUrl);
      const res = await c.login('alice', 'alice-pw-1');
      assert.equal(res.status, 303);
      const cookie = res.setCookies.find((s) => s.startsWith('__Host-yona_session='))!;
      assert.match(cookie, /; Secure/);
      assert.match(cookie, /; HttpOnly/);
      assert.match(cookie, /; SameSite=Lax/);
      const id = decodeURIComponent(c.cookies.get('__Host-yona_session')!);
      const rows = await t.service.store.db.selectFrom('console_sessions').select('id_hash').execute();
      assert.ok(rows.some((r) => r.id_hash === createHash('sha256').update(id).digest('hex')));
      assert.ok(rows.every((r) => r.id_hash !== id));
      const home = await c.get('/console');
      assert.equal(home.status, 200);
      assert.match(home.text, /alice/);
      assert.match(home.text, /SMS credits/);
      assert.match(home.text, /Create your first API token: the API needs one./);
    });

    it('refuses a form without the session CSRF token, and a sign-in form without its cookie', async () => {
      const c = new ConsoleClient(t.httpsUrl);
      await c.login('alice', 'alice-pw-1');
      await c.get('/console');
      const forged = await c.post('/console/logout', { _csrf: 'forged' });
      assert.equal(forged.status, 403);
      assert.equal((await c.get('/console')).status, 200, 'still signed in');
      const stranger = new ConsoleClient(t.httpsUrl);
      const res = await stranger.post('/console/login', { username: 'alice', password: 'alice-pw-1', _csrf: 'x' });
      assert.equal(res.status, 403);
      assert.equal(stranger.cookies.has('__Host-yona_session'), false);
    });

    it('signs out: the old cookie no longer opens a page', async () => {
      const c = new ConsoleClient(t.httpsUrl);
      await c.login('alice', 'alice-pw-1');
      const session = c.cookies.get('__Host-yona_session')!;
      await c.get('/console');
      const out = await c.post('/console/logout');
      assert.equal(out.status, 303);
      c.cookies.set('__Host-yona_session', session);
      const res = await c.get('/console');
      assert.equal(res.status, 303);
      assert.match(res.location!, /^\/console\/login/);
    });

    it('ends a session after 30 idle minutes', async () => {
      const c = new ConsoleClient(t.httpsUrl);
      await c.login('alice', 'alice-pw-1');
      assert.equal((await c.get('/console')).status, 200);
      now += 31 * 60_000;
      const res = await c.get('/console');
      assert.equal(res.status, 303);
      assert.equal(res.location, '/console/login?back=%2Fconsole');
    });

    it('locks a username after five failures, even for the right password, without locking others', async () => {
      const c = new ConsoleClient(t.httpsUrl);
      for (let i = 0; i < 4; i++) assert.equal((await c.login('bob', `wrong-${i}`)).status, 401);
      const fifth = await c.login('bob', 'wrong-5');
      assert.equal(fifth.status, 429);
      assert.match(fifth.text, /Too many failed sign-ins for this user. Try again in 15 minutes/);
      const right = await c.login('bob', 'bob-pw-12');
      assert.equal(right.status, 429);
      assert.equal((await new ConsoleClient(t.httpsUrl).login('alice', 'alice-pw-1')).status, 303);
      now += 16 * 60_000;
      assert.equal((await c.login('bob', 'bob-pw-12')).status, 303);
    });

    it('yona admin set-password changes the password, signs the account out and refuses bad input', async () => {
      await t.admin('create-account', 'cara', '--password', 'cara-pw-1');
      const c = new ConsoleClient(t.httpsUrl);
      await c.login('cara', 'cara-pw-1');
      assert.equal((await c.get('/console')).status, 200);
      assert.deepEqual(await t.admin('set-password', 'cara', '--password', 'cara-pw-2'), [
        'the console password of cara is set; its console sessions are signed out',
      ]);
      assert.equal((await c.get('/console')).status, 303);
      assert.equal((await c.login('cara', 'cara-pw-1')).status, 401);
      assert.equal((await c.login('cara', 'cara-pw-2')).status, 303);
      await assert.rejects(
        t.admin('set-password', 'cara', '--password', 'short'),
        /password must be 6 to 128 characters/,
      );
      await assert.rejects(t.admin('set-password', 'nobody', '--password', 'long-enough'), /no account named "nobody"/);
      await assert.rejects(t.admin('set-password', 'cara'), /missing --password/);
    });

    it('is not served over plain HTTP', async () => {
      const res = await request(`${t.httpUrl}/console/login`);
      assert.equal(res.statusCode, 404);
      await res.body.text();
    });
  });
}
