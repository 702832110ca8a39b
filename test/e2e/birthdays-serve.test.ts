// The birthday worker as `yona serve` runs it: a birthday campaign created over HTTP greets a contact on the
// day, through the real send path (a charged 'birthday' campaign with a queued message), once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { birthdaysComponent } from '../../src/cli/serve.ts';
import { zonedParts } from '../../src/domain/dates.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';

const [sqlite] = await storeTargets();

describe('birthday worker wired into serve', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService(sqlite, { components: [birthdaysComponent(50)] });
  });
  after(() => t.close());

  it('greets a contact whose birthday is today, charged once, and not again on the next runs', async () => {
    const a = await t.account('bdaywired', ['--credits', '10']);
    await t.admin('verify-sender', 'bdaywired', 'Shop');
    const today = zonedParts(Date.now(), 'Asia/Jerusalem');
    const dob = `${String(today.day).padStart(2, '0')}/${String(today.month).padStart(2, '0')}/1990`;
    const call = (root: string, doc: Record<string, unknown>) => t.api(root, { user: { username: 'bdaywired' }, ...doc }, { token: a.token });
    const list = await call('newCL', { cl: { name: 'friends', destinations: { destination: [{ phone: '0501234567', df1: 'Dana', df2: dob }] } } });
    assert.equal(list.status, 0);
    const created = await call('new_birthday_campaign', {
      cl_id: list.id, name: 'bday', message: 'Happy birthday [DYNAMIC_FIELD1]!', source: 'Shop', hour: 0, dob_field: 'df2',
    });
    assert.equal(created.status, 0, JSON.stringify(created));

    const db = t.service.store.db;
    let messages: Array<{ phone: string; text: string }> = [];
    for (let i = 0; i < 100 && messages.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      messages = await db.selectFrom('messages').innerJoin('campaigns', 'campaigns.id', 'messages.campaign_id')
        .select(['messages.phone', 'messages.text']).where('campaigns.kind', '=', 'birthday').execute();
    }
    assert.deepEqual(messages, [{ phone: '972501234567', text: 'Happy birthday Dana!' }]);
    await new Promise((r) => setTimeout(r, 300)); // several more worker runs
    const count = await db.selectFrom('campaigns').select((eb) => eb.fn.countAll().as('n')).where('kind', '=', 'birthday').executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 1);
    const balance = await call('balance', {});
    assert.equal(balance.balance, '9');
  });
});
