// The birthday worker as `yona serve` wires it, on every store, with the service clock injected: a birthday
// campaign created over HTTP greets today's contacts through the real send path (a charged 'birthday' campaign
// with queued messages, the balance debited), never twice the same year (later runs that day, and a second
// service started on the same store), and again the next year. No wall clock, no fixed sleeps.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { birthdaysComponent } from '../../src/cli/serve.ts';
import { fromZoned } from '../../src/domain/dates.ts';
import { waitFor } from '../helpers/push-receiver.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';

const at = (year: number, hour: number, minute = 0) =>
  fromZoned({ year, month: 5, day: 10, hour, minute, second: 0 }, 'Asia/Jerusalem');

const targets = await storeTargets();
for (const target of targets) {
  describe(`birthday worker wired into serve, clock injected (${target.name})`, () => {
    let t: TestService;
    let token: string;
    let now = at(2027, 9);
    const serviceOptions = () => ({ components: [birthdaysComponent(20)], clock: () => now });
    const call = (root: string, doc: Record<string, unknown>) =>
      t.api(root, { user: { username: 'bdaywired' }, ...doc }, { token });
    const balance = async () => (await call('balance', {})).balance;
    // Greetings sent so far: [phone, text] of every message of the account's birthday campaigns, sorted.
    const greetings = async () => {
      const rows = await t.service.store.db
        .selectFrom('messages')
        .innerJoin('campaigns', 'campaigns.id', 'messages.campaign_id')
        .select(['messages.phone', 'messages.text', 'messages.state'])
        .where('campaigns.kind', '=', 'birthday')
        .execute();
      for (const r of rows) assert.equal(r.state, 'queued');
      return rows.map((r) => [r.phone, r.text]).sort();
    };
    const waitForGreetings = async (count: number, what: string) => {
      await waitFor(async () => (await greetings()).length >= count, what);
      return greetings();
    };
    const addContact = async (phone: string, name: string, dob: string) => {
      const reply = await call('addNumCL', {
        cl: { id: listId },
        destinations: { destination: { phone, df1: name, df2: dob } },
      });
      assert.deepEqual([reply.status, reply.added], [0, 1]);
    };
    let listId: number;

    before(async () => {
      t = await startTestService(target, serviceOptions());
      await t.admin('create-account', 'bdaywired', '--password', 'secret-pw', '--credits', '10');
      // The clock moves a year ahead: the token must outlive that.
      token = (await t.admin('create-token', 'bdaywired', '--expires-in', '3650d')).at(-1)!;
      await t.admin('verify-sender', 'bdaywired', 'Shop');
    });
    after(() => t.close());

    it("greets today's contacts once at the hour, not again that day nor after a restart, and again next year", async () => {
      const list = await call('newCL', {
        cl: {
          name: 'friends',
          destinations: {
            destination: [
              { phone: '0501234567', df1: 'Dana', df2: '10/05/1990' },
              { phone: '0502345678', df1: 'Avi', df2: '10/5' },
              { phone: '0503456789', df1: 'Noa', df2: '11/05' },
            ],
          },
        },
      });
      assert.equal(list.status, 0);
      listId = list.id;
      const created = await call('new_birthday_campaign', {
        cl_id: listId,
        name: 'bday',
        message: 'Happy birthday [DYNAMIC_FIELD1]!',
        source: 'Shop',
        hour: 9,
        dob_field: 'df2',
      });
      assert.equal(created.status, 0, JSON.stringify(created));
      const dana = ['972501234567', 'Happy birthday Dana!'];
      const avi = ['972502345678', 'Happy birthday Avi!'];
      const mor = ['972504567890', 'Happy birthday Mor!'];
      const eli = ['972505678901', 'Happy birthday Eli!'];

      assert.deepEqual(await waitForGreetings(2, 'the first greetings'), [dana, avi].sort());
      assert.equal(await balance(), '8');
      const campaigns = await t.service.store.db
        .selectFrom('campaigns')
        .select(['name', 'state', 'credits_charged'])
        .where('kind', '=', 'birthday')
        .execute();
      assert.deepEqual(
        campaigns.map((c) => [c.name, c.state, Number(c.credits_charged)]),
        [
          ['bday', 'queued', 1],
          ['bday', 'queued', 1],
        ],
      );

      // Later the same day a contact with today's birthday joins: the next run greets her alone.
      now = at(2027, 9, 30);
      await addContact('0504567890', 'Mor', '10/05/2001');
      assert.deepEqual(await waitForGreetings(3, 'the greeting of the contact added later'), [dana, avi, mor].sort());
      assert.equal(await balance(), '7');

      // A second service on the same store (a restart), still the same day: nobody is greeted twice.
      t = await t.restart(serviceOptions());
      now = at(2027, 15);
      await addContact('0505678901', 'Eli', '10.5.1985');
      assert.deepEqual(await waitForGreetings(4, 'the greeting after the restart'), [dana, avi, mor, eli].sort());
      assert.equal(await balance(), '6');

      // The next year, the same day: everyone whose birthday it is is greeted again, once.
      now = at(2028, 9);
      const twice = await waitForGreetings(8, "the next year's greetings");
      assert.deepEqual(twice, [dana, dana, avi, avi, mor, mor, eli, eli].sort());
      assert.equal(await balance(), '2');
      now = at(2028, 10);
      await addContact('0506789012', 'Gil', '10/05');
      const gil = ['972506789012', 'Happy birthday Gil!'];
      assert.deepEqual(await waitForGreetings(9, 'a greeting next year after the others'), [...twice, gil].sort());
      assert.equal(await balance(), '1');
      assert.ok(!(await greetings()).some(([phone]) => phone === '972503456789'), "Noa's birthday is tomorrow");
    });
  });
}
