// A randomized property over HTTP on every store: waves of concurrent sends (some scheduled), one-time codes,
// cancels and reseller transfers both ways, with the dispatcher running, leave every account's balances equal to
// its ledger sums, and none negative. The run is seeded, so a failure names the seed that reproduces it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formatShort } from '../../src/domain/dates.ts';
import { mulberry32 } from '../helpers/random.ts';
import { storeTargets } from '../helpers/stores.ts';
import { startDelivery, type DeliveryHarness } from '../delivery/delivery-helpers.ts';

const targets = await storeTargets();
const SEED = Number(process.env.LEDGER_PROPERTY_SEED ?? Date.now() % 100_000);
const WAVE = 120;

for (const target of targets) {
  describe(`ledger property under concurrency (${target.name}, seed ${SEED})`, () => {
    let h: DeliveryHarness;
    let token: string;
    const accounts = ['hub', 'hub-a', 'hub-b'];

    before(async () => {
      h = await startDelivery(target, {
        env: { YONA_OTP_RESEND_SECONDS: '0', YONA_OTP_PHONE_HOURLY: '0', YONA_OTP_ACCOUNT_HOURLY: '0' },
      });
      token = (await h.t.account('hub', ['--reseller', '--international', '50.00'])).token;
      for (const sub of ['hub-a', 'hub-b']) {
        await h.t.admin('create-account', sub, '--password', 'secret-pw', '--parent', 'hub', '--credits', '40');
      }
      for (const username of accounts) await h.t.admin('verify-sender', username, 'Yona');
    });
    after(() => h.close());

    it(`keeps every balance equal to its ledger sum through ${WAVE * 2} concurrent operations`, async () => {
      const rnd = mulberry32(SEED);
      const pick = <T>(items: T[]) => items[Math.floor(rnd() * items.length)];
      const call = (root: string, username: string, doc: Record<string, unknown>) =>
        h.t.api(root, { user: { username }, ...doc }, { token });
      const phone = () => `05212${String(Math.floor(rnd() * 100_000)).padStart(5, '0')}`;
      const later = formatShort(Date.now() + 3 * 86_400_000, 'Asia/Jerusalem');
      const scheduled: Array<{ username: string; id: number }> = [];
      const statuses = new Map<string, number[]>();
      const note = (kind: string, status: number) => {
        statuses.set(kind, [...(statuses.get(kind) ?? []), status]);
      };

      const randomOperation = (wave: number): Promise<void> => {
        const roll = rnd();
        const username = pick(accounts);
        if (roll < 0.35) {
          const timing = rnd() < 0.4 ? { timing: later } : {};
          const destinations = { phone: Array.from({ length: 1 + Math.floor(rnd() * 3) }, phone) };
          return call('sms', username, {
            source: 'Yona',
            message: 'x'.repeat(rnd() < 0.2 ? 200 : 20),
            destinations,
            ...timing,
          }).then((r) => {
            note('sms', r.status);
            if (r.status === 0 && 'timing' in timing) scheduled.push({ username, id: r.campaign_id });
          });
        }
        if (roll < 0.55)
          return call('send_otp', username, { source: 'Yona', phone: phone() }).then((r) => note('send_otp', r.status));
        if (roll < 0.7 && wave > 0 && scheduled.length > 0) {
          const target = scheduled.splice(Math.floor(rnd() * scheduled.length), 1)[0];
          return call('cancel', target.username, { campaign_id: target.id }).then((r) => note('cancel', r.status));
        }
        const amount = Math.floor(rnd() * 61) - 30;
        const money = (Math.floor(rnd() * 2001) - 1000) / 100;
        const fields = rnd() < 0.5 ? { amount } : { amount, amount_int: money.toFixed(2) };
        return call('updateAmountSub', 'hub', { userDetails: { username: pick(['hub-a', 'hub-b']) }, ...fields }).then(
          (r) => note('updateAmountSub', r.status),
        );
      };

      for (const wave of [0, 1]) await Promise.all(Array.from({ length: WAVE }, () => randomOperation(wave)));

      for (const [kind, list] of statuses) {
        for (const status of list)
          assert.ok([0, 4, 12, 990].includes(status), `${kind} answered ${status} (seed ${SEED})`);
      }
      assert.ok((statuses.get('sms') ?? []).includes(0), 'some sends were accepted');
      assert.ok((statuses.get('updateAmountSub') ?? []).includes(0), 'some transfers went through');
      const db = h.t.service.store.db;
      for (const username of accounts) {
        const account = await db
          .selectFrom('accounts')
          .select(['id', 'credits', 'intl_agorot'])
          .where('username', '=', username)
          .executeTakeFirstOrThrow();
        const sums = await db
          .selectFrom('ledger_entries')
          .select(['currency', (eb) => eb.fn.sum<number>('amount').as('total')])
          .where('account_id', '=', account.id)
          .groupBy('currency')
          .execute();
        const sum = (currency: string) => Number(sums.find((s) => s.currency === currency)?.total ?? 0);
        assert.equal(Number(account.credits), sum('credits'), `${username} credits against its ledger (seed ${SEED})`);
        assert.equal(
          Number(account.intl_agorot),
          sum('international'),
          `${username} money against its ledger (seed ${SEED})`,
        );
        assert.ok(
          Number(account.credits) >= 0 && Number(account.intl_agorot) >= 0,
          `${username} never negative (seed ${SEED})`,
        );
      }
      // Money only moved between the three accounts and out through sends: the totals account for every credit.
      const all = await db
        .selectFrom('ledger_entries')
        .select((eb) => eb.fn.sum<number>('amount').as('total'))
        .where('currency', '=', 'credits')
        .where('reason', 'like', 'transfer:%')
        .executeTakeFirstOrThrow();
      assert.equal(Number(all.total), 0, 'transfers neither create nor destroy credits');
    });
  });
}
