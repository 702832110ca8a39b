// A reseller's console shows each sub-account's campaigns, from a link on the sub-accounts page; another reseller,
// the sub-account itself and unknown names get a 404.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConsoleClient } from '../../helpers/console-client.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { storeTargets } from '../../helpers/stores.ts';

const [sqlite] = await storeTargets();

describe("console: a sub-account's campaigns", () => {
  let t: TestService;
  let campaignId: number;
  const signedIn = async (username: string) => {
    const c = new ConsoleClient(t.httpsUrl);
    assert.equal((await c.login(username, `${username}-pw-1`)).status, 303);
    return c;
  };

  before(async () => {
    t = await startTestService(sqlite);
    for (const reseller of ['head', 'rival'])
      await t.admin('create-account', reseller, '--password', `${reseller}-pw-1`, '--reseller');
    await t.admin(
      'create-account',
      'head-branch',
      '--password',
      'head-branch-pw-1',
      '--parent',
      'head',
      '--credits',
      '10',
    );
    await t.admin('verify-sender', 'head-branch', 'Branch');
    const token = (await t.admin('create-token', 'head-branch')).at(-1)!;
    const sent = await t.api(
      'sms',
      {
        user: { username: 'head-branch' },
        source: 'Branch',
        destinations: { phone: '0521234567' },
        message: 'opening hours',
        campaign_name: 'Spring sale',
      },
      { token },
    );
    assert.equal(sent.status, 0, sent.message);
    campaignId = sent.campaign_id;
  });
  after(() => t?.close());

  it("shows the reseller its sub-account's campaigns from the sub-accounts page", async () => {
    const c = await signedIn('head');
    const subs = await c.get('/console/subaccounts');
    assert.match(subs.text, /<a href="\/console\/subaccounts\/head-branch\/campaigns">head-branch<\/a>/);
    const page = await c.get('/console/subaccounts/head-branch/campaigns');
    assert.equal(page.status, 200);
    assert.match(page.text, /<h1>Campaigns of head-branch<\/h1>/);
    assert.match(
      page.text,
      new RegExp(
        `<td data-label="Campaign">${campaignId}</td><td data-label="Name"><span dir="auto">Spring sale</span></td>`,
      ),
    );
  });

  it('answers 404 to another reseller, to the sub-account itself and for an unknown name', async () => {
    for (const [who, path] of [
      ['rival', '/console/subaccounts/head-branch/campaigns'],
      ['head-branch', '/console/subaccounts/head-branch/campaigns'],
      ['head', '/console/subaccounts/nobody/campaigns'],
    ]) {
      const page = await (await signedIn(who)).get(path);
      assert.equal(page.status, 404, `${who} ${path}`);
      assert.doesNotMatch(page.text, /Spring sale/);
    }
  });
});
