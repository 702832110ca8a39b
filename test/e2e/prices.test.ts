// The operator's prices, on every store, through `yona admin price ...` and the API: the international rate card
// (per destination country, with a default that replaces YONA_INTL_PRICE_AGOROT) prices dry runs and sends, the
// ledger takes exactly that, the margins report adds it up; an account's own prices of a domestic and an
// international part come before the card.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { calendarMonth } from '../../src/domain/dates.ts';
import { carriersComponent } from '../../src/delivery/carriers.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { eventually } from '../delivery/delivery-helpers.ts';
import { newSender, type Sender } from '../operations/send-helpers.ts';

const US = '+14155550123';
const GB = '+447911123456';
const HOME = '0501234567';

for (const target of await storeTargets()) {
  describe(`prices: the rate card and an account's own prices (${target.name})`, () => {
    let t: TestService;
    let s: Sender;
    const send = (phones: string[], o: { dryRun?: boolean; message?: string } = {}) =>
      s.sms(
        { destinations: { phone: phones }, includes_international: '1', message: o.message ?? 'hello' },
        { dryRun: o.dryRun },
      );
    const intlLedger = async () => {
      const [json] = await t.admin('ledger', s.username, '--json');
      return JSON.parse(json)
        .entries.filter((e: { currency: string }) => e.currency === 'international')
        .map((e: { amount: number }) => e.amount);
    };

    before(async () => {
      t = await startTestService(target, {
        components: [carriersComponent({ settings: { pollMs: 20 }, config: loadConfig({}) })],
      });
      s = await newSender(t, 'rated', 100, ['--international', '100']);
    });
    after(async () => t?.close());

    it('without a rate card every country costs YONA_INTL_PRICE_AGOROT a part', async () => {
      const reply = await send([US, GB], { dryRun: true });
      assert.deepEqual([reply.status, reply.international_cost], [0, '0.50'], JSON.stringify(reply));
      const [json] = await t.admin('price', 'list', '--json');
      assert.deepEqual(JSON.parse(json), {
        default_agorot: 25,
        default_from: 'YONA_INTL_PRICE_AGOROT',
        countries: {},
        accounts: [],
      });
    });

    it('a country price and the default price dry runs and sends; the ledger takes exactly that', async () => {
      assert.deepEqual(await t.admin('price', 'set-country', 'us', '18'), ['US: - -> 18 agorot a part']);
      assert.deepEqual(await t.admin('price', 'default', '40'), ['default: - -> 40 agorot a part']);
      const dry = await send([US, GB, HOME], { dryRun: true });
      assert.deepEqual([dry.status, dry.credits, dry.international_cost], [0, 1, '0.58'], JSON.stringify(dry));
      assert.deepEqual(await s.balance(), { credits: 100, agorot: 10_000 }, 'a dry run charges nothing');
      // Two parts each (161 GSM-7 characters).
      const reply = await send([US, GB, HOME], { message: 'x'.repeat(161) });
      assert.deepEqual([reply.status, reply.credits, reply.international_cost], [0, 2, '1.16'], JSON.stringify(reply));
      assert.deepEqual(await s.balance(), { credits: 98, agorot: 10_000 - 116 });
      assert.deepEqual((await intlLedger()).slice(1), [-116], 'one debit of exactly the priced sum');
      const rows = await t.service.store.db
        .selectFrom('messages')
        .select(['phone', 'cost_agorot', 'cost_credits'])
        .where('account_id', '=', await t.accountId('rated'))
        .orderBy('phone')
        .execute();
      assert.deepEqual(
        rows.map((r) => [r.phone, Number(r.cost_credits), Number(r.cost_agorot)]),
        [
          ['14155550123', 0, 36],
          ['447911123456', 0, 80],
          ['972501234567', 2, 0],
        ],
      );
    });

    it('the margins report charges each account what its messages were priced at', async () => {
      await eventually(
        async () => {
          const n = await t.service.store.db
            .selectFrom('messages')
            .select('id')
            .where('carrier', 'is not', null)
            .execute();
          return n.length === 3 || undefined;
        },
        30_000,
        'every message taken by a carrier',
      );
      const month = calendarMonth(Date.now(), t.config.defaultTimeZone);
      const [json] = await t.admin('report', 'margins', '--month', month, '--credit-price', '10', '--json');
      const line = JSON.parse(json).accounts.find((a: { username: string }) => a.username === 'rated');
      assert.deepEqual(
        [line.messages, line.parts, line.charged_credits, line.charged_international_agorot, line.charged_agorot],
        [3, 6, 2, 116, 136],
      );
    });

    it("an account's own prices come before the card; none takes them away", async () => {
      const set = await t.admin('price', 'account', 'rated', '--domestic', '3', '--international', '30');
      assert.deepEqual(set, ['rated: domestic 3 credits, international 30 agorot a part (was -, -)']);
      const dry = await send([US, GB, HOME], { dryRun: true });
      assert.deepEqual([dry.credits, dry.international_cost], [3, '0.60'], JSON.stringify(dry));
      await t.admin('create-account', 'other', '--password', 'secret-pw', '--credits', '10', '--international', '10');
      const otherToken = (await t.admin('create-token', 'other')).at(-1)!;
      await t.admin('verify-sender', 'other', 'Yona');
      const other = await t.api(
        'sms',
        {
          user: { username: 'other' },
          source: 'Yona',
          message: 'hi',
          destinations: { phone: [US, HOME] },
          includes_international: '1',
        },
        { token: otherToken, dryRun: true },
      );
      assert.deepEqual(
        [other.credits, other.international_cost],
        [1, '0.18'],
        "another account keeps the card's prices",
      );
      const [json] = await t.admin('price', 'list', '--json');
      assert.deepEqual(JSON.parse(json), {
        default_agorot: 40,
        default_from: 'rate card',
        countries: { US: 18 },
        accounts: [{ username: 'rated', domestic_credits: 3, international_agorot: 30 }],
      });
      await t.admin('price', 'account', 'rated', '--international', 'none');
      const back = await send([US, HOME], { dryRun: true });
      assert.deepEqual([back.credits, back.international_cost], [3, '0.18']);
      await t.admin('price', 'default', 'none');
      await t.admin('price', 'set-country', 'US', 'none');
      assert.equal((await send([US], { dryRun: true })).international_cost, '0.25');
    });

    it('refuses what is not a price or a country', async () => {
      await assert.rejects(t.admin('price', 'set-country', 'USA', '5'), /two-letter country code/);
      await assert.rejects(t.admin('price', 'default', '-3'), /whole number from 0/);
      await assert.rejects(t.admin('price', 'account', 'nobody', '--domestic', '2'), /no account named "nobody"/);
      await assert.rejects(t.admin('price', 'lst'), /did you mean "list"/);
    });
  });
}
