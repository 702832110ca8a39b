// /admin/senders and /admin/prices on every store: a customer asks for a sender name in /console/senders, the
// operator approves it in /admin/senders and the customer sends from it; a rejection's reason reaches the
// customer; `yona admin verify-sender` shows on the page; the rate card and an account's own prices set from
// /admin/prices price the next send; every change is in /admin/audit with the operator's name; a support
// operator's forms and a forged CSRF token change nothing; a customer's session opens no /admin page.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AdminClient, enrolledSecrets } from '../../helpers/admin-client.ts';
import { ConsoleClient } from '../../helpers/console-client.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { storeTargets } from '../../helpers/stores.ts';
import { newSender, type Sender } from '../../operations/send-helpers.ts';

for (const target of await storeTargets()) {
  describe(`operator console: senders and prices (${target.name})`, () => {
    let t: TestService;
    let ana: Sender;
    let customer: ConsoleClient;
    let dana: AdminClient;
    let sam: AdminClient;
    const pendingIds = async () => {
      const [json] = await t.admin('senders', '--pending', '--json');
      return JSON.parse(json).requests.map((r: { id: number; source: string }) => [r.id, r.source]) as Array<
        [number, string]
      >;
    };

    before(async () => {
      enrolledSecrets.clear();
      t = await startTestService(target);
      await t.admin('create-operator', 'dana', '--password', 'dana-pw-123');
      await t.admin('create-operator', 'sam', '--password', 'sam-pw-1234', '--role', 'support');
      ana = await newSender(t, 'ana', 100, ['--international', '10']);
      await t.admin('set-password', 'ana', '--password', 'ana-console-pw');
      customer = new ConsoleClient(t.httpsUrl);
      await customer.login('ana', 'ana-console-pw');
      dana = new AdminClient(t.httpsUrl);
      assert.equal((await dana.signIn('dana', 'dana-pw-123', Date.now())).status, 303);
      sam = new AdminClient(t.httpsUrl);
      assert.equal((await sam.signIn('sam', 'sam-pw-1234', Date.now())).status, 303);
    });
    after(async () => t?.close());

    it('a request made in /console/senders is approved in /admin/senders; the customer sends from it', async () => {
      await customer.get('/console/senders');
      await customer.post('/console/senders/request', { source: 'AnaShop', reason: 'receipts for our shop' });
      const page = await dana.get('/admin/senders');
      assert.equal(page.status, 200);
      assert.match(page.text, /<td data-label="Sender name">AnaShop<\/td>/);
      assert.match(page.text, /receipts for our shop/);
      const [[id]] = await pendingIds();
      const approved = await dana.post('/admin/senders/approve', { id: String(id) });
      assert.equal(approved.status, 303);
      assert.match((await dana.get(approved.location!)).text, /Approved: the name is a verified sender/);
      assert.match((await customer.get('/console/senders')).text, /<td data-label="Status">Approved<\/td>/);
      assert.equal((await ana.sms({ source: 'AnaShop', destinations: { phone: '0501234567' } })).status, 0);
      const audit = await dana.get('/admin/audit?action=approveSender');
      assert.match(audit.text, /<td data-label="Operator">dana<\/td>/);
      assert.match(audit.text, new RegExp(`sender request #${id}`));
      assert.match(audit.text, /state: &#34;pending&#34;[\s\S]*state: &#34;approved&#34;/);
    });

    it('a rejection in /admin/senders shows its reason to the customer', async () => {
      await customer.get('/console/senders');
      await customer.post('/console/senders/request', { source: 'AnaPromo', reason: 'promotions' });
      const [[id]] = await pendingIds();
      await dana.get('/admin/senders');
      const rejected = await dana.post('/admin/senders/reject', { id: String(id), reason: 'Use your business name' });
      assert.equal(rejected.status, 303);
      const page = await customer.get('/console/senders');
      assert.match(
        page.text,
        /<td data-label="Status">Rejected<\/td><td data-label="Operator&#39;s reason">Use your business name<\/td>/,
      );
    });

    it('verify-sender from the CLI shows on /admin/senders and in the audit log', async () => {
      await t.admin('verify-sender', 'ana', 'AnaLab');
      const page = await dana.get('/admin/senders');
      assert.match(
        page.text,
        /<td data-label="Account">ana<\/td><td data-label="Sender name">AnaLab<\/td><td data-label="Verified by">operator<\/td>/,
      );
      const audit = await dana.get('/admin/audit?action=verifySender');
      assert.match(audit.text, /<td data-label="From">cli<\/td>/);
      assert.match(audit.text, /ana sender AnaLab/);
    });

    it('the rate card and an account price set in /admin/prices price the next send', async () => {
      await dana.get('/admin/prices');
      assert.equal((await dana.post('/admin/prices/country', { country: 'us', agorot: '18' })).status, 303);
      assert.equal((await dana.post('/admin/prices/default', { agorot: '40' })).status, 303);
      const dry = await ana.sms(
        { destinations: { phone: ['+14155550123', '+442071234567'] }, includes_international: '1' },
        { dryRun: true },
      );
      assert.equal(dry.international_cost, '0.58');
      assert.equal(
        (await dana.post('/admin/prices/account', { username: 'ana', domestic: '2', international: '' })).status,
        303,
      );
      const home = await ana.sms({ destinations: { phone: ['0501234567'] } }, { dryRun: true });
      assert.equal(home.credits, 2);
      const page = await dana.get('/admin/prices');
      assert.match(page.text, /<td data-label="Country">US<\/td><td data-label="Agorot a part">18<\/td>/);
      assert.match(page.text, /Default price of an international part: 40 agorot\./);
      assert.match(
        page.text,
        /<td data-label="Account">ana<\/td><td data-label="Credits a domestic part">2<\/td><td data-label="Agorot an international part">-<\/td>/,
      );
      assert.match(
        (await dana.post('/admin/prices/country', { country: 'USA', agorot: '5' })).text,
        /a country two letters/,
      );
      const audit = await dana.get('/admin/audit?action=setCountryPrice');
      assert.match(audit.text, /price US/);
      assert.match(audit.text, /agorot: null[\s\S]*agorot: 18/);
    });

    it("a support operator's forms and a forged CSRF token change nothing; a customer opens no /admin page", async () => {
      await customer.get('/console/senders');
      await customer.post('/console/senders/request', { source: 'AnaNews', reason: 'news' });
      const [[id]] = await pendingIds();
      assert.equal((await sam.get('/admin/senders')).status, 200, 'support reads the page');
      assert.equal((await sam.post('/admin/senders/approve', { id: String(id) })).status, 403);
      assert.equal((await sam.post('/admin/prices/default', { agorot: '1' })).status, 403);
      assert.equal((await sam.post('/admin/senders/reserved', { pattern: 'x*', reserved: '1' })).status, 403);
      await dana.get('/admin/senders');
      assert.equal((await dana.post('/admin/senders/approve', { id: String(id), _csrf: 'forged' })).status, 403);
      assert.equal((await dana.post('/admin/prices/default', { agorot: '1', _csrf: 'forged' })).status, 403);
      assert.deepEqual(await pendingIds(), [[id, 'AnaNews']], 'still waiting');
      assert.match((await t.admin('price', 'list'))[0], /^default: 40 agorot/);
      for (const path of ['/admin/senders', '/admin/prices']) {
        const res = await customer.get(path);
        assert.equal(res.status, 303, path);
        assert.match(res.location!, /^\/admin\/login/);
      }
    });
  });
}
