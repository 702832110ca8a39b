// One-time codes leave the campaign list for a page of their own (/console/codes), which never shows a code;
// the campaign list's `kind` filter still finds them. On both stores, over HTTPS without a browser.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConsoleClient } from '../../helpers/console-client.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { storeTargets } from '../../helpers/stores.ts';
import { newSender } from '../../operations/send-helpers.ts';

for (const target of await storeTargets()) {
  describe(`console one-time codes page (${target.name})`, () => {
    let t: TestService;
    let web: ConsoleClient;
    let otpCampaign: number;
    before(async () => {
      t = await startTestService(target);
      const s = await newSender(t, 'gal', 100);
      const sent = await s.call('send_otp', { source: 'Yona', phone: '0521230001' });
      assert.equal(sent.status, 0, JSON.stringify(sent));
      otpCampaign = (
        await t.service.store.db
          .selectFrom('campaigns')
          .select('id')
          .where('kind', '=', 'otp')
          .executeTakeFirstOrThrow()
      ).id;
      await s.sms({ destinations: { phone: ['0521230002'] }, message: 'A sale', campaign_name: 'Sale' });
      web = new ConsoleClient(t.httpsUrl);
      await web.login('gal', 'secret-pw');
    });
    after(() => t?.close());

    it('lists codes on their own page, never the code, and keeps them out of the campaign list unless asked', async () => {
      const codes = await web.get('/console/codes');
      assert.equal(codes.status, 200);
      assert.match(codes.text, /0521230001/);
      assert.match(codes.text, /Waiting for validation/);
      const row = await t.service.store.db.selectFrom('otp_codes').select('code_hash').executeTakeFirstOrThrow();
      assert.ok(!codes.text.includes(row.code_hash));
      const list = await web.get('/console/campaigns');
      assert.ok(!list.text.includes(`/console/campaigns/${otpCampaign}"`), 'not in the default list');
      assert.match(list.text, /Sale/);
      const otps = await web.get('/console/campaigns?kind=otp');
      assert.ok(otps.text.includes(`/console/campaigns/${otpCampaign}"`));
      assert.ok(!otps.text.includes('Sale'));
    });
  });
}
