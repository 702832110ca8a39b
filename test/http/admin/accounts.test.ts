// The operator console's account pages on every store: an admin operator creates an account and credits it (the
// ledger names the operator), suspends and resumes it, and each change is in the audit log with the state before
// and after; a support operator's every form is refused server-side; a form without the session's CSRF token is
// refused; a customer's session opens no /admin page.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_PAGES } from '../../../src/http/admin/pages.ts';
import { AdminClient, enrolledSecrets } from '../../helpers/admin-client.ts';
import { ConsoleClient } from '../../helpers/console-client.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { storeTargets } from '../../helpers/stores.ts';

/** A path of the page table with its parameters filled in. */
const concrete = (path: string) => path.replace(':name', 'alice').replace(':lang', 'en');

for (const target of await storeTargets()) {
  describe(`operator console accounts (${target.name})`, () => {
    let t: TestService;
    let now = Date.UTC(2026, 10, 27, 10, 0, 0);
    const later = () => {
      now += 31_000;
      return now;
    };
    let dana: AdminClient;
    before(async () => {
      enrolledSecrets.clear();
      t = await startTestService(target, { clock: () => now });
      await t.admin('create-operator', 'dana', '--password', 'dana-pw-123');
      await t.admin('create-operator', 'sam', '--password', 'sam-pw-1234', '--role', 'support');
      dana = new AdminClient(t.httpsUrl);
      assert.equal((await dana.signIn('dana', 'dana-pw-123', now)).status, 303);
    });
    after(() => t?.close());

    it('creates an account and credits it; the ledger names the operator', async () => {
      await dana.get('/admin/accounts');
      const created = await dana.post('/admin/accounts/create', {
        username: 'alice',
        name: 'Alice Ltd',
        password: 'alice-pw-123',
        credits: '10',
      });
      assert.equal(created.status, 303);
      assert.equal(created.location, '/admin/accounts/alice?ok=done');
      await dana.get('/admin/accounts/alice');
      const credited = await dana.post('/admin/accounts/alice/credit', { amount: '25', reason: 'monthly top-up' });
      assert.equal(credited.status, 303);
      const page = await dana.get('/admin/accounts/alice');
      assert.match(page.text, /<dd>35<\/dd>/);
      assert.match(page.text, /operator dana: monthly top-up/);
      const overdraw = await dana.post('/admin/accounts/alice/credit', { amount: '-100', reason: 'too much' });
      assert.equal(overdraw.status, 400);
      assert.match(overdraw.text, /would take the balance below zero/);
      const list = await dana.get('/admin/accounts?q=ali');
      assert.match(list.text, /Alice Ltd/);
    });

    it('suspends an account (its token is refused) and resumes it', async () => {
      const { token } = await t.account('bob');
      await dana.get('/admin/accounts/bob');
      assert.equal((await dana.post('/admin/accounts/bob/suspend', { reason: 'unpaid' })).status, 303);
      assert.equal((await t.api('balance', { user: { username: 'bob' } }, { token })).status, 511);
      assert.equal((await dana.post('/admin/accounts/bob/resume')).status, 303);
      assert.equal((await t.api('balance', { user: { username: 'bob' } }, { token })).status, 0);
    });

    it('writes every change to the audit log with before and after', async () => {
      const audit = await dana.get('/admin/audit?subject=alice');
      assert.equal(audit.status, 200);
      assert.match(audit.text, /creditAccount/);
      assert.match(audit.text, /createAccount/);
      assert.match(audit.text, /credits: 10[\s\S]*credits: 35|credits: 35[\s\S]*credits: 10/);
      const csv = await dana.get('/admin/audit.csv?operator=dana&action=suspendAccount');
      assert.match(csv.text, /suspendAccount,bob/);
      assert.doesNotMatch(csv.text, /creditAccount/);
    });

    it('refuses every form of a support operator server-side, changing nothing', async () => {
      const sam = new AdminClient(t.httpsUrl);
      assert.equal((await sam.signIn('sam', 'sam-pw-1234', later())).status, 303);
      const page = await sam.get('/admin/accounts/alice');
      assert.equal(page.status, 200);
      assert.doesNotMatch(page.text, /action="\/admin\/accounts\/alice\/credit"/, 'no form shown');
      for (const p of ADMIN_PAGES.filter((x) => x.audience === 'admin')) {
        const res = await sam.post(concrete(p.path), {
          amount: '1000',
          reason: 'x',
          username: 'mallory',
          password: 'pw-123456',
        });
        assert.equal(res.status, 403, p.path);
      }
      const alice = await dana.get('/admin/accounts/alice');
      assert.match(alice.text, /<dd>35<\/dd>/);
      assert.equal((await dana.get('/admin/accounts/mallory')).status, 404);
    });

    it('refuses every form without the session CSRF token', async () => {
      for (const p of ADMIN_PAGES.filter((x) => x.audience !== 'anyone')) {
        const res = await dana.post(concrete(p.path), { _csrf: 'forged', amount: '1000', reason: 'x' });
        assert.equal(res.status, p.audience === 'admin' || p.path === '/admin/logout' ? 403 : res.status, p.path);
      }
      assert.match((await dana.get('/admin/accounts/alice')).text, /<dd>35<\/dd>/);
    });

    it('opens the message log across accounts, filtered by account, and its CSV', async () => {
      const page = await dana.get('/admin/messages?account=bob');
      assert.equal(page.status, 200);
      const csv = await dana.get('/admin/messages.csv?account=alice');
      assert.equal(csv.status, 200);
      assert.match(csv.text, /^\uFEFFcreated_at,account,phone/);
    });

    it('opens no /admin page to a customer session', async () => {
      const customer = new ConsoleClient(t.httpsUrl);
      assert.equal((await customer.login('alice', 'alice-pw-123')).status, 303);
      for (const p of ADMIN_PAGES.filter((x) => x.audience !== 'anyone')) {
        // Forms open to every operator are posted too.
        const form = p.audience === 'admin' || p.path === '/admin/logout' || p.path === '/admin/routes/test';
        const res = form ? await customer.post(concrete(p.path)) : await customer.get(concrete(p.path));
        assert.equal(res.status, 303, p.path);
        assert.match(res.location!, /^\/admin\/login/);
      }
    });
  });
}
