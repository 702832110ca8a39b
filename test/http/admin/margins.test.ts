// /admin/margins on every store, against seeded traffic: the month's margins per channel (SMS, voice, WhatsApp)
// and per account with a reseller's group and the total, exactly as `yona admin report margins --json` gives them
// (the CLI's channel breakdown checked here too), a chart of the 12 months to it with a month's figures where
// they belong, credits counted at the price given; a malformed month or price refused with a message; a support
// operator and Hebrew read it too.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DELIVERY } from '../../../src/domain/status.ts';
import { AdminClient, enrolledSecrets } from '../../helpers/admin-client.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { storeTargets } from '../../helpers/stores.ts';
import { seedMessages } from './seed-traffic.ts';
import { rowsOf } from './tables.ts';

for (const target of await storeTargets()) {
  describe(`operator console margins (${target.name})`, () => {
    let t: TestService;
    const now = Date.UTC(2026, 10, 27, 11, 0, 30);
    const november = Date.UTC(2026, 10, 10, 9, 0, 0);
    const october = Date.UTC(2026, 9, 15, 9, 0, 0);
    let dana: AdminClient;
    let sam: AdminClient;
    const done = { status: DELIVERY.DELIVERED, carrier: 'alpha' } as const;

    before(async () => {
      enrolledSecrets.clear();
      t = await startTestService(target, { clock: () => now });
      await t.admin('create-operator', 'dana', '--password', 'dana-pw-123');
      await t.admin('create-operator', 'sam', '--password', 'sam-pw-1234', '--role', 'support');
      await t.admin('create-account', 'ana', '--password', 'ana-password-1');
      await t.admin('create-account', 'resl', '--password', 'resl-password-1', '--reseller');
      await t.admin('create-account', 'resl-sub', '--password', 'sub-password-1', '--parent', 'resl');
      const at = (when: number) => ({ createdAt: when, submittedAt: when, statusAt: when + 1000 });
      // November: ana 4 texts of 2 parts (2 credits, 3.5 agorot of carrier cost each) and 2 calls (3 credits, 5
      // agorot each); resl-sub 3 WhatsApp messages at 20 international agorot through an unpriced carrier.
      await seedMessages(t, 4, { account: 'ana', ...at(november), ...done, parts: 2, credits: 2, carrierCost: 3500 });
      await seedMessages(t, 2, {
        account: 'ana',
        ...at(november),
        ...done,
        channel: 'call',
        credits: 3,
        carrierCost: 5000,
      });
      await seedMessages(t, 3, { account: 'resl-sub', ...at(november), ...done, channel: 'whatsapp', agorot: 20 });
      // Accepted in November, never taken by a carrier: not in the report.
      await seedMessages(t, 7, { account: 'ana', createdAt: november, state: 'queued', credits: 1 });
      // October: ana 5 texts at 1 credit, 2 agorot of carrier cost each.
      await seedMessages(t, 5, { account: 'ana', ...at(october), ...done, credits: 1, carrierCost: 2000 });
      dana = new AdminClient(t.httpsUrl);
      assert.equal((await dana.signIn('dana', 'dana-pw-123', now)).status, 303);
      sam = new AdminClient(t.httpsUrl);
      assert.equal((await sam.signIn('sam', 'sam-pw-1234', now)).status, 303);
    });
    after(async () => t?.close());

    it('shows the month per channel and per account with the reseller group, credits at the price given', async () => {
      const page = await dana.get('/admin/margins?month=2026-11&credit-price=10');
      assert.equal(page.status, 200);
      assert.match(page.text, /<a href="\/admin\/margins" aria-current="page">Margins<\/a>/);
      assert.deepEqual(rowsOf(page.text, 'By channel'), [
        ['SMS', '4', '8', '8', '0.00', '0.80', '0.14', '0.66'],
        ['Voice', '2', '2', '6', '0.00', '0.60', '0.10', '0.50'],
        ['WhatsApp', '3', '3', '0', '0.60', '0.60', '0.00', '0.60'],
      ]);
      assert.deepEqual(rowsOf(page.text, 'By account'), [
        ['ana', '6', '10', '14', '0.00', '1.40', '0.24', '1.16'],
        ['resl', '0', '0', '0', '0.00', '0.00', '0.00', '0.00'],
        ['↳ resl-sub', '3', '3', '0', '0.60', '0.60', '0.00', '0.60'],
        ['resl with its sub-accounts', '3', '3', '0', '0.60', '0.60', '0.00', '0.60'],
        ['Total', '9', '13', '14', '0.60', '2.00', '0.24', '1.76'],
      ]);
      assert.match(page.text, /3 message\(s\) went through carriers with no cost per part/);
    });

    it('charts the 12 months to the month shown: charged, carrier cost and margin in shekels', async () => {
      const page = await dana.get('/admin/margins?month=2026-11&credit-price=10');
      const json = /<script type="application\/json" id="margins-data">([^<]*)<\/script>/.exec(page.text)?.[1];
      const data = JSON.parse(json ?? '{}');
      assert.equal(data.x.length, 12);
      assert.equal(data.step, 'month');
      // November 2026 starts at midnight in Jerusalem (UTC+2).
      assert.equal(data.x.at(-1), Date.UTC(2026, 9, 31, 22, 0, 0) / 1000);
      assert.deepEqual(
        data.series.map((s: { label: string; values: number[] }) => [s.label, s.values.slice(-2)]),
        [
          ['Charged (₪)', [0.5, 2]],
          ['Carrier cost (₪)', [0.1, 0.24]],
          ['Margin (₪)', [0.4, 1.76]],
        ],
      );
      assert.equal(
        data.series[0].values.slice(0, 10).every((v: number) => v === 0),
        true,
      );
      assert.match(
        page.text,
        /aria-label="Chart of the 12 months to 2026-11, in shekels: 2.50 charged, 0.34 carrier cost, 2.16 margin in all\."/,
      );
      const table = rowsOf(page.text, 'The chart as a table');
      assert.deepEqual(table.at(-2), ['2026-10', '5', '0.50', '0.10', '0.40']);
    });

    it('gives the CLI the same figures, with the channel breakdown', async () => {
      const [json] = await t.admin('report', 'margins', '--month', '2026-11', '--credit-price', '10', '--json');
      const report = JSON.parse(json);
      const line = (m: number, p: number, c: number, i: number, ch: number, cost: number, u: number) => ({
        messages: m,
        parts: p,
        charged_credits: c,
        charged_international_agorot: i,
        charged_agorot: ch,
        carrier_cost_agorot: cost,
        margin_agorot: ch - cost,
        unpriced_messages: u,
      });
      assert.deepEqual(report.channels, [
        { channel: 'sms', ...line(4, 8, 8, 0, 80, 14, 0) },
        { channel: 'voice', ...line(2, 2, 6, 0, 60, 10, 0) },
        { channel: 'whatsapp', ...line(3, 3, 0, 60, 60, 0, 3) },
      ]);
      assert.deepEqual(report.total, line(9, 13, 14, 60, 200, 24, 3));
      const text = await t.admin('report', 'margins', '--month', '2026-11', '--credit-price', '10');
      const from = text.indexOf('by channel:');
      assert.ok(from > 0, text.join('\n'));
      assert.match(text[from + 1], /^channel\s+messages\s+parts/);
      assert.match(text[from + 2], /^sms\s+4\s+8\s+8\s+0\.00\s+0\.80\s+0\.14\s+0\.66$/);
      assert.match(text[from + 3], /^voice\s+2\s+2\s+6\s+0\.00\s+0\.60\s+0\.10\s+0\.50$/);
      assert.match(text[from + 4], /^whatsapp\s+3\s+3\s+0\s+0\.60\s+0\.60\s+0\.00\s+0\.60$/);
    });

    it('counts credits as 0 without a price, and refuses a malformed month or price', async () => {
      const free = await dana.get('/admin/margins?month=2026-11');
      assert.match(free.text, /Credits count as 0/);
      assert.deepEqual(rowsOf(free.text, 'By account').at(-1), [
        'Total',
        '9',
        '13',
        '14',
        '0.60',
        '0.60',
        '0.24',
        '0.36',
      ]);
      const month = await dana.get('/admin/margins?month=2026-13');
      assert.equal(month.status, 400);
      assert.match(month.text, /The month must be YYYY-MM, like 2026-11\./);
      const price = await dana.get('/admin/margins?month=2026-11&credit-price=ten');
      assert.equal(price.status, 400);
      assert.match(price.text, /The price of a credit must be agorot/);
    });

    it('shows the current month by default, to a support operator, in Hebrew too', async () => {
      const page = await sam.get('/admin/margins');
      assert.equal(page.status, 200);
      assert.match(page.text, /name="month" value="2026-11"/);
      await sam.get('/admin/lang/he?back=/admin/margins');
      const he = await sam.get('/admin/margins?month=2026-11&credit-price=10');
      assert.match(he.text, /<html lang="he" dir="rtl">/);
      assert.deepEqual(rowsOf(he.text, 'לפי חשבון').at(-1), [
        'סך הכול',
        '9',
        '13',
        '14',
        '0.60',
        '2.00',
        '0.24',
        '1.76',
      ]);
    });
  });
}
