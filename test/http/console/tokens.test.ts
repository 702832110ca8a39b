// The console's token page: five active tokens at most (the sixth is refused with the limit explained and
// nothing invalidated), a token deleted there stops at once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConsoleClient } from '../../helpers/console-client.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { storeTargets } from '../../helpers/stores.ts';

const [sqlite] = await storeTargets();

describe('console tokens', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService(sqlite);
    await t.admin('create-account', 'dana', '--password', 'dana-pw-1', '--credits', '7');
  });
  after(() => t?.close());

  it('mints up to five working tokens, explains the limit at the sixth and invalidates none', async () => {
    const c = new ConsoleClient(t.httpsUrl);
    await c.login('dana', 'dana-pw-1');
    await c.get('/console/tokens');
    const tokens: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await c.post('/console/tokens/new');
      assert.equal(res.status, 200);
      tokens.push(/id="token-value" readonly value="([^"]+)"/.exec(res.text)![1]);
    }
    const sixth = await c.post('/console/tokens/new');
    assert.match(sixth.text, /You already have 5 active tokens, the most an account may hold/);
    assert.doesNotMatch(sixth.text, /id="token-value"/);
    for (const token of tokens)
      assert.equal((await t.api('balance', { user: { username: 'dana' } }, { token })).status, 0);
    const page = await c.get('/console/tokens');
    assert.doesNotMatch(page.text, /Create a token/);
    assert.ok(
      tokens.every((k) => !page.text.includes(k)),
      'the list never shows a token value',
    );
  });
});
