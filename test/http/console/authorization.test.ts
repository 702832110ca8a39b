// One account's console session never sees or changes another account's data: every page and every form is
// tried by a second account with the first one's ids, names and values; the first account's data is unchanged.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConsoleClient } from '../../helpers/console-client.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { storeTargets } from '../../helpers/stores.ts';
import { newSender } from '../../operations/send-helpers.ts';

const PAGES = [
  '/console',
  '/console/campaigns',
  '/console/tokens',
  '/console/ips',
  '/console/push',
  '/console/balance',
  '/console/senders',
  '/console/lists',
  '/console/blocklist',
  '/console/birthdays',
  '/console/subaccounts',
  '/console/messages',
  '/console/messages.csv',
  '/console/inbound',
  '/console/balance/ledger.csv',
  '/console/security',
  '/console/send',
  '/console/codes',
  '/console/campaigns?kind=sms',
];

for (const target of await storeTargets()) {
  describe(`console authorization (${target.name})`, () => {
    let t: TestService;
    let ana: { token: string; campaignId: number; listId: number; birthdayId: number; tokenName: string };
    let ben: ConsoleClient;
    const secrets = [
      'Ana-Secret-List',
      'Ana-Spring-Sale',
      '198.51.100.0/24',
      'https://ana.example/hook',
      '0529990001',
      'Ana-Birthday',
      '0521110001',
      'Ana-Reply',
    ];

    before(async () => {
      t = await startTestService(target, { env: { YONA_PUSH_ALLOW_PRIVATE: '1' } });
      const s = await newSender(t, 'ana', 1000);
      const sent = await s.sms({
        destinations: { phone: ['0521110001'] },
        message: 'later',
        timing: '01/01/40 10:00',
        campaign_name: 'Ana-Spring-Sale',
      });
      const list = await s.call('newCL', {
        cl: [
          {
            name: 'Ana-Secret-List',
            destinations: { destination: [{ phone: '0521110002', df1: 'x', df2: '01/01/1990' }] },
          },
        ],
      });
      await s.call('push_url', { type: 'dlr', url: 'https://ana.example/hook' });
      await s.call('addNumBL', { phones: ['0529990001'] });
      const bd = await s.call('new_birthday_campaign', {
        cl_id: String(list.id),
        name: 'Ana-Birthday',
        message: 'Happy birthday',
        source: 'Yona',
        dob_field: 'df2',
      });
      await t.admin('allow-ip', 'ana', '198.51.100.0/24');
      const anaId = await t.accountId('ana');
      await t.service.store.db
        .insertInto('inbound_messages')
        .values({
          account_id: anaId,
          phone: '972521110001',
          dest: '0559990002',
          text: 'Ana-Reply',
          carrier: 'sim',
          received_at: Date.now(),
        })
        .execute();
      await t.admin('ip-check', 'ana', 'off');
      const tokenName = (await t.service.store.db.selectFrom('api_tokens').select('name').executeTakeFirstOrThrow())
        .name;
      ana = { token: s.token, campaignId: sent.campaign_id, listId: list.id, birthdayId: bd.id, tokenName };
      await t.admin('create-account', 'ben', '--password', 'ben-pw-123', '--credits', '50', '--reseller');
      ben = new ConsoleClient(t.httpsUrl);
      assert.equal((await ben.login('ben', 'ben-pw-123')).status, 303);
    });
    after(() => t?.close());

    it("shows none of the other account's data on any page", async () => {
      for (const path of PAGES) {
        const res = await ben.get(path);
        assert.equal(res.status, 200, path);
        for (const secret of secrets) assert.ok(!res.text.includes(secret), `${path} shows ${secret}`);
        assert.ok(!res.text.includes(ana.tokenName), `${path} shows ana's token`);
      }
      for (const path of [
        `/console/messages?campaign=${ana.campaignId}`,
        `/console/messages.csv?campaign=${ana.campaignId}`,
        '/console/inbound?q=Ana',
      ]) {
        const res = await ben.get(path);
        for (const secret of secrets) assert.ok(!res.text.includes(secret), `${path} shows ${secret}`);
      }
      for (const path of [
        `/console/campaigns/${ana.campaignId}`,
        `/console/campaigns/${ana.campaignId}/messages.csv`,
        `/console/lists/${ana.listId}`,
      ]) {
        const res = await ben.get(path);
        assert.equal(res.status, 404, path);
        for (const secret of secrets) assert.ok(!res.text.includes(secret), `${path} shows ${secret}`);
      }
    });

    it("changes nothing of the other account's with its ids in every form", async () => {
      await ben.get('/console');
      await ben.post(`/console/campaigns/${ana.campaignId}/cancel`);
      await ben.post(`/console/lists/${ana.listId}/add`, { csv: '0521110003' });
      await ben.post(`/console/lists/${ana.listId}/delete`);
      await ben.post('/console/tokens/delete', { name: ana.tokenName });
      await ben.post('/console/ips/remove', { cidr: '198.51.100.0/24' });
      await ben.post('/console/push/delete', { type: 'dlr' });
      await ben.post('/console/push/disable', { type: 'dlr' });
      await ben.post('/console/blocklist/remove', { phone: '972529990001' });
      await ben.post('/console/birthdays/active', { id: String(ana.birthdayId), active: '0' });
      await ben.post('/console/balance/low-balance', { credits: '5000', account_id: String(await t.accountId('ana')) });
      const transfer = await ben.post('/console/subaccounts/transfer', { username: 'ana', amount: '-100' });
      assert.match(transfer.text, /not your sub-account/);

      const db = t.service.store.db;
      const campaign = await db
        .selectFrom('campaigns')
        .select('state')
        .where('id', '=', ana.campaignId)
        .executeTakeFirstOrThrow();
      assert.equal(campaign.state, 'scheduled');
      const list = await db
        .selectFrom('contact_lists')
        .select('contact_count')
        .where('id', '=', ana.listId)
        .executeTakeFirstOrThrow();
      assert.equal(Number(list.contact_count), 1);
      assert.equal((await t.api('balance', { user: { username: 'ana' } }, { token: ana.token })).status, 0);
      assert.deepEqual(
        (await db.selectFrom('account_ips').select('cidr').execute()).map((r) => r.cidr),
        ['198.51.100.0/24'],
      );
      const push = await db.selectFrom('push_registrations').select('state').executeTakeFirstOrThrow();
      assert.equal(push.state, 'registered');
      assert.equal((await db.selectFrom('blocklist').select('phone').execute()).length, 1);
      const bd = await db
        .selectFrom('birthday_campaigns')
        .select('active')
        .where('id', '=', ana.birthdayId)
        .executeTakeFirstOrThrow();
      assert.equal(Number(bd.active), 1);
      const balance = await db
        .selectFrom('accounts')
        .select('credits')
        .where('username', '=', 'ana')
        .executeTakeFirstOrThrow();
      assert.equal(Number(balance.credits), 999);
      const thresholds = await db
        .selectFrom('accounts')
        .select(['username', 'low_balance_credits'])
        .orderBy('username')
        .execute();
      assert.deepEqual(
        thresholds.map((a) => [a.username, a.low_balance_credits === null ? null : Number(a.low_balance_credits)]),
        [
          ['ana', null],
          ['ben', 5000],
        ],
      );
    });

    it('keeps the sub-accounts page to resellers, and a reseller to its own sub-accounts', async () => {
      const anaConsole = new ConsoleClient(t.httpsUrl);
      await anaConsole.login('ana', 'secret-pw');
      assert.equal((await anaConsole.get('/console/subaccounts')).status, 404);
      await ben.get('/console/subaccounts');
      const created = await ben.post('/console/subaccounts', {
        name: 'Ben Shop',
        new_username: 'ben-shop',
        password: 'shop-pw-123',
        source: 'BenShop',
        opening: '20',
      });
      assert.match(created.text, /Sub-account ben-shop created with 20 credits/);
      const moved = await ben.post('/console/subaccounts/transfer', { username: 'ben-shop', amount: '-5' });
      assert.match(moved.text, /ben-shop now has 15 credits/);
      const bad = await ben.post('/console/subaccounts/transfer', { username: 'ben-shop', amount: 'lots' });
      assert.equal(bad.status, 200);
      assert.match(bad.text, /class="notice error"/);
    });

    it('refuses the reseller-only pages and forms to an account that is not a reseller, and leaves them out of its navigation', async () => {
      const anaConsole = new ConsoleClient(t.httpsUrl);
      await anaConsole.login('ana', 'secret-pw');
      assert.doesNotMatch((await anaConsole.get('/console')).text, /href="\/console\/subaccounts"/);
      assert.match((await ben.get('/console')).text, /<li><a href="\/console\/subaccounts">Sub-accounts<\/a><\/li>/);
      const form = {
        username: 'ana',
        name: 'Ana Shop',
        new_username: 'ana-shop',
        password: 'shop-pw-123',
        source: 'AnaShop',
      };
      for (const path of ['/console/subaccounts', '/console/subaccounts/transfer', '/console/subaccounts/suspend']) {
        const res = await anaConsole.post(path, { ...form, opening: '0', amount: '1' });
        assert.equal(res.status, 404, path);
        assert.doesNotMatch(res.text, /class="notice/, path);
      }
      for (const path of ['/console/subaccounts/ana/campaigns', '/console/subaccounts/ana/messages'])
        assert.equal((await anaConsole.get(path)).status, 404, path);
      const shop = await t.service.store.db
        .selectFrom('accounts')
        .select('id')
        .where('username', '=', 'ana-shop')
        .executeTakeFirst();
      assert.equal(shop, undefined);
    });
  });
}
