// A reseller suspends and resumes a sub-account from the console: while suspended its API token is refused
// (511, saying why) and its console sign-in too (its open sessions end), nothing of its data changes, and
// another reseller cannot touch it. Sign-in failures lock a username only from the address they came from.
// On both stores, over HTTPS without a browser (behind a trusted proxy, so each client has its own address).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConsoleClient } from '../../helpers/console-client.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { storeTargets } from '../../helpers/stores.ts';

const from = (t: TestService, address: string) => {
  const c = new ConsoleClient(t.httpsUrl);
  c.headers = { 'x-forwarded-for': address };
  return c;
};

for (const target of await storeTargets()) {
  describe(`console sub-account suspension and lockout (${target.name})`, () => {
    let t: TestService;

    before(async () => {
      t = await startTestService(target, { env: { YONA_TRUST_PROXY: '127.0.0.1/32,::1/128' } });
      await t.admin('create-account', 'rita', '--password', 'rita-pw-123', '--credits', '500', '--reseller');
      await t.admin('create-account', 'sam', '--password', 'sam-pw-1234', '--credits', '50', '--reseller');
    });
    after(() => t?.close());

    it("refuses a suspended sub-account's token and sign-in until resumed, and keeps its data", async () => {
      const rita = from(t, '203.0.113.10');
      assert.equal((await rita.login('rita', 'rita-pw-123')).status, 303);
      await rita.get('/console/subaccounts');
      const created = await rita.post('/console/subaccounts', {
        name: 'Rita Shop',
        new_username: 'rita-shop',
        password: 'shop-pw-123',
        source: 'RitaShop',
        opening: '30',
      });
      assert.match(created.text, /Sub-account rita-shop created with 30 credits/);
      const lines = await t.admin('create-token', 'rita-shop');
      const token = lines[lines.length - 1];
      const balance = () => t.api('balance', { user: { username: 'rita-shop' } }, { token });
      assert.equal((await balance()).status, 0);
      const shop = from(t, '203.0.113.20');
      assert.equal((await shop.login('rita-shop', 'shop-pw-123')).status, 303);
      assert.equal((await shop.get('/console')).status, 200);

      const sam = from(t, '203.0.113.30');
      await sam.login('sam', 'sam-pw-1234');
      await sam.get('/console/subaccounts');
      assert.match(
        (await sam.post('/console/subaccounts/suspend', { username: 'rita-shop' })).location ?? '',
        /error=subNotYours/,
      );
      assert.equal((await balance()).status, 0, "another reseller's suspension did nothing");

      await rita.get('/console/subaccounts');
      const suspended = await rita.post('/console/subaccounts/suspend', { username: 'rita-shop' });
      assert.match(suspended.location ?? '', /ok=subSuspendedOk/);
      assert.match((await rita.get('/console/subaccounts')).text, /<strong>Suspended<\/strong>/);
      const refused = await balance();
      assert.equal(refused.status, 511);
      assert.match(String(refused.message), /suspended by its reseller/);
      assert.equal((await shop.get('/console')).status, 303, 'its open console session ends');
      const login = await from(t, '203.0.113.21').login('rita-shop', 'shop-pw-123');
      assert.equal(login.status, 403);
      assert.match(login.text, /This account is suspended by its reseller/);

      await rita.get('/console/subaccounts');
      assert.match(
        (await rita.post('/console/subaccounts/resume', { username: 'rita-shop' })).location ?? '',
        /ok=subResumedOk/,
      );
      const back = await balance();
      assert.deepEqual([back.status, back.balance], [0, '30']);
      assert.equal((await from(t, '203.0.113.22').login('rita-shop', 'shop-pw-123')).status, 303);
      assert.equal((await rita.get('/console/subaccounts/rita-shop/messages')).status, 200);
      assert.equal((await sam.get('/console/subaccounts/rita-shop/messages')).status, 404);
    });

    it('locks a username after five failures from one address only', async () => {
      const attacker = from(t, '198.51.100.66');
      for (let i = 0; i < 4; i++) assert.equal((await attacker.login('rita', `wrong-${i}`)).status, 401);
      assert.equal((await attacker.login('rita', 'wrong-5')).status, 429);
      assert.equal((await attacker.login('rita', 'rita-pw-123')).status, 429, 'locked from that address');
      assert.equal(
        (await from(t, '203.0.113.99').login('rita', 'rita-pw-123')).status,
        303,
        'the owner elsewhere is not',
      );
    });
  });
}
