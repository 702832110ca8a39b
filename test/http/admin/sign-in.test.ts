// The operator's sign-in at /admin on every store: TOTP enrolment at the first sign-in (the secret as text and as
// an otpauth:// address, with a QR code), a code at every sign-in after, a code used once, a lockout per name and
// address, CSRF on the sign-in and every form, and sessions apart from the customers' console.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { totpCode } from '../../../src/domain/totp.ts';
import { AdminClient, enrolledSecrets } from '../../helpers/admin-client.ts';
import { ConsoleClient } from '../../helpers/console-client.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { storeTargets } from '../../helpers/stores.ts';

for (const target of await storeTargets()) {
  describe(`operator sign-in (${target.name})`, () => {
    let t: TestService;
    let now = Date.UTC(2026, 10, 27, 10, 0, 0);
    const later = () => {
      now += 31_000;
      return now;
    };
    before(async () => {
      enrolledSecrets.clear();
      t = await startTestService(target, { clock: () => now });
      await t.admin('create-operator', 'dana', '--password', 'dana-pw-123');
      await t.admin('create-operator', 'sam', '--password', 'sam-pw-1234', '--role', 'support');
      await t.admin('create-account', 'alice', '--password', 'alice-pw-1');
    });
    after(() => t?.close());

    it('enrols an authenticator at the first sign-in, then asks for a code every time', async () => {
      const c = new AdminClient(t.httpsUrl);
      const first = await c.password('dana', 'dana-pw-123');
      assert.equal(first.status, 200);
      assert.match(first.text, /otpauth:\/\/totp\/Yona%20operator%3Adana\?secret=[A-Z2-7]+/);
      assert.match(first.text, /<svg/);
      const secret = enrolledSecrets.get('dana')!;
      const wrong = await c.post('/admin/login/code', {
        code: '000000' === totpCode(secret, now) ? '111111' : '000000',
      });
      assert.equal(wrong.status, 401);
      const ok = await c.post('/admin/login/code', { code: totpCode(secret, now) });
      assert.equal(ok.status, 303);
      assert.equal(ok.location, '/admin');
      const home = await c.get('/admin');
      assert.equal(home.status, 200);
      assert.match(home.text, /Signed in as dana, admin/);

      const again = new AdminClient(t.httpsUrl);
      const step = await again.password('dana', 'dana-pw-123');
      assert.doesNotMatch(step.text, /otpauth:/, 'no new secret once enrolled');
      const reused = await again.post('/admin/login/code', { code: totpCode(secret, now) });
      assert.equal(reused.status, 401, 'a code counts once');
      assert.equal((await again.signIn('dana', 'dana-pw-123', later())).status, 303);
    });

    it('keeps operators and customers apart: neither session opens the other console', async () => {
      const customer = new ConsoleClient(t.httpsUrl);
      assert.equal((await customer.login('alice', 'alice-pw-1')).status, 303);
      const refused = await customer.get('/admin');
      assert.equal(refused.status, 303);
      assert.match(refused.location!, /^\/admin\/login/);
      const operator = new AdminClient(t.httpsUrl);
      assert.equal((await operator.signIn('dana', 'dana-pw-123', later())).status, 303);
      const customerPage = await operator.get('/console');
      assert.equal(customerPage.status, 303);
      assert.match(customerPage.location!, /^\/console\/login/);
      assert.equal((await operator.login('dana', 'dana-pw-123')).status, 401, 'an operator is not an account');
    });

    it('locks a name out from one address after five failures', async () => {
      const c = new AdminClient(t.httpsUrl);
      for (let i = 0; i < 4; i++) assert.equal((await c.password('sam', 'wrong-one')).status, 401);
      const fifth = await c.password('sam', 'wrong-one');
      assert.equal(fifth.status, 429);
      assert.equal((await c.password('sam', 'sam-pw-1234')).status, 429, 'even the right password, while locked');
      now += 16 * 60_000;
      assert.equal((await c.signIn('sam', 'sam-pw-1234', now)).status, 303);
    });

    it('refuses a sign-in without its CSRF cookie, and a form without the session token', async () => {
      const stranger = new AdminClient(t.httpsUrl);
      const res = await stranger.post('/admin/login', { name: 'dana', password: 'dana-pw-123', _csrf: 'x' });
      assert.equal(res.status, 403);
      const c = new AdminClient(t.httpsUrl);
      await c.signIn('dana', 'dana-pw-123', later());
      assert.equal((await c.post('/admin/logout', { _csrf: 'forged' })).status, 403);
      assert.equal((await c.get('/admin')).status, 200);
      await c.get('/admin');
      assert.equal((await c.post('/admin/logout')).status, 303);
      assert.equal((await c.get('/admin')).status, 303);
    });

    it('records the CLI creating operators in the audit log', async () => {
      const c = new AdminClient(t.httpsUrl);
      await c.signIn('sam', 'sam-pw-1234', later());
      const audit = await c.get('/admin/audit?action=createOperator');
      assert.equal(audit.status, 200);
      assert.match(audit.text, /operator dana/);
      assert.match(audit.text, /role: &#34;support&#34;/);
      assert.match(audit.text, /password: &#34;\(hidden\)&#34;/);
      assert.doesNotMatch(audit.text, /sam-pw-1234/);
    });
  });
}
