// /admin on every store, against seeded traffic: the flows per second over the last minute, the last 24 hours in
// 10-minute steps (a message older than that left out), the delivery rate per carrier over the last hour and the
// day, the due and retry queues with the age of their oldest message, the failing and disabled push URLs and the
// live nodes with their roles; a support operator reads the same page; a visitor without a session is sent to sign in.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DELIVERY } from '../../../src/domain/status.ts';
import { AdminClient, enrolledSecrets } from '../../helpers/admin-client.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { storeTargets } from '../../helpers/stores.ts';
import { seedInbound, seedMessages, seedPushUrl } from './seed-traffic.ts';
import { rowsOf } from './tables.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;

for (const target of await storeTargets()) {
  describe(`operator console overview (${target.name})`, () => {
    let t: TestService;
    // 30 seconds into a 10-minute step.
    let now = Date.UTC(2026, 10, 27, 11, 0, 30);
    let dana: AdminClient;
    let sam: AdminClient;

    before(async () => {
      enrolledSecrets.clear();
      t = await startTestService(target, { clock: () => now });
      await t.admin('create-operator', 'dana', '--password', 'dana-pw-123');
      await t.admin('create-operator', 'sam', '--password', 'sam-pw-1234', '--role', 'support');
      await t.admin('create-account', 'ana', '--password', 'ana-password-1');
      await t.admin('create-account', 'bob', '--password', 'bob-password-1');
      // The last minute: 30 accepted by ana, 18 of them taken by alpha, 12 of those with a final status (9 delivered).
      await seedMessages(t, 12, { account: 'ana', createdAt: now - 30_000, state: 'queued' });
      await seedMessages(t, 6, {
        account: 'ana',
        createdAt: now - 30_000,
        submittedAt: now - 20_000,
        statusAt: now - 20_000,
        state: 'submitted',
        status: DELIVERY.SUBMITTED,
        carrier: 'alpha',
        nextAttemptAt: now + HOUR,
      });
      await seedMessages(t, 9, {
        account: 'ana',
        createdAt: now - 30_000,
        submittedAt: now - 20_000,
        statusAt: now - 10_000,
        status: DELIVERY.DELIVERED,
        carrier: 'alpha',
      });
      await seedMessages(t, 3, {
        account: 'ana',
        createdAt: now - 30_000,
        submittedAt: now - 20_000,
        statusAt: now - 10_000,
        status: DELIVERY.NOT_DELIVERED,
        carrier: 'alpha',
      });
      // Two hours ago: 10 by bob on beta, 8 delivered.
      await seedMessages(t, 8, {
        account: 'bob',
        createdAt: now - 2 * HOUR,
        submittedAt: now - 2 * HOUR,
        statusAt: now - 2 * HOUR + 5000,
        status: DELIVERY.DELIVERED,
        carrier: 'beta',
      });
      await seedMessages(t, 2, {
        account: 'bob',
        createdAt: now - 2 * HOUR,
        submittedAt: now - 2 * HOUR,
        statusAt: now - 2 * HOUR + 5000,
        status: DELIVERY.EXPIRED,
        carrier: 'beta',
      });
      // 30 hours ago: outside every window.
      await seedMessages(t, 5, {
        account: 'bob',
        createdAt: now - 30 * HOUR,
        submittedAt: now - 30 * HOUR,
        statusAt: now - 30 * HOUR,
        status: DELIVERY.NOT_DELIVERED,
        carrier: 'beta',
      });
      // A retry waiting after failing on beta, accepted 20 minutes ago.
      await seedMessages(t, 1, {
        account: 'bob',
        createdAt: now - 20 * MIN,
        state: 'queued',
        carrier: 'beta',
        attempts: 1,
        nextAttemptAt: now + 5 * MIN,
      });
      await seedInbound(t, 'ana', 6, now - 15_000);
      await seedInbound(t, 'bob', 2, now - 3 * HOUR);
      await seedPushUrl(t, 'ana', {
        type: 'dlr',
        url: 'https://hooks.example.com/ana',
        disabled: true,
        failures: 12,
        lastFailureAt: now - HOUR,
      });
      await seedPushUrl(t, 'bob', {
        type: 'incoming_sms',
        url: 'https://hooks.example.com/bob',
        disabled: false,
        failures: 3,
        lastFailureAt: now - 5 * MIN,
      });
      await t.service.store.db
        .insertInto('nodes')
        .values({
          name: 'edge-1',
          roles: 'api,receipts',
          host: 'edge-1.example',
          pid: 4242,
          started_at: now - HOUR,
          heartbeat_at: now - 2000,
          expires_at: now + MIN,
          carrier_health: null,
        })
        .execute();
      dana = new AdminClient(t.httpsUrl);
      assert.equal((await dana.signIn('dana', 'dana-pw-123', now)).status, 303);
      sam = new AdminClient(t.httpsUrl);
      assert.equal((await sam.signIn('sam', 'sam-pw-1234', now)).status, 303);
    });
    after(async () => t?.close());

    it('shows the traffic of the last minute per second, over every account', async () => {
      const page = await dana.get('/admin');
      assert.equal(page.status, 200);
      const rate = (flow: string) => new RegExp(`data-flow="${flow}">[^<]+<b>([^<]+)</b>`).exec(page.text)?.[1];
      // 30 accepted, 18 submitted, 12 final receipts, 6 inbound in 60 seconds.
      assert.deepEqual(['accepts', 'submits', 'receipts', 'inbound'].map(rate), ['0.5/s', '0.3/s', '0.2/s', '0.1/s']);
    });

    it('charts the last 24 hours in 10-minute steps, with the same figures as a table', async () => {
      const page = await dana.get('/admin');
      const json = /<script type="application\/json" id="traffic-data">([^<]*)<\/script>/.exec(page.text)?.[1];
      const data = JSON.parse(json ?? '{}');
      assert.equal(data.x.length, 144);
      assert.equal(data.x[1] - data.x[0], 600);
      const stepOfNow = Math.floor(now / 600_000) * 600;
      assert.equal(data.x.at(-1), stepOfNow, 'the last step holds now');
      const totals = data.series.map((s: { values: number[] }) => s.values.reduce((a, b) => a + b, 0));
      // accepted: 30 + 10 + the retry's 1; submitted: 18 + 10; receipts: 12 + 10; inbound: 6 + 2 (30 h ago left out).
      assert.deepEqual(totals, [41, 28, 22, 8]);
      assert.deepEqual(
        data.series.map((s: { values: number[] }) => s.values.at(-1)),
        [30, 18, 12, 6],
      );
      assert.deepEqual(
        data.series.map((s: { label: string }) => s.label),
        ['Accepted', 'Submitted to carriers', 'Final receipts', 'Inbound'],
      );
      assert.match(
        page.text,
        /aria-label="Chart of the last 24 hours in 10-minute steps: 41 accepted, 28 submitted, 22 final receipts, 8 inbound\."/,
      );
      const table = rowsOf(page.text, 'The chart as a table');
      assert.equal(table.length, 4, 'one row per step with traffic');
      assert.deepEqual(table.at(-1)?.slice(1), ['30', '18', '12', '6']);
      assert.match(page.text, /<script src="\/console\/assets\/chart\.js" defer>/);
    });

    it('shows the delivery rate per carrier over the last hour and the last 24 hours', async () => {
      const page = await dana.get('/admin');
      assert.deepEqual(rowsOf(page.text, 'Delivery rate per carrier'), [
        ['alpha', '75.0% of 12', '75.0% of 12'],
        ['beta', '–', '80.0% of 10'],
      ]);
    });

    it('shows the queues with the age of their oldest message', async () => {
      const page = await dana.get('/admin');
      assert.deepEqual(rowsOf(page.text, 'Queues'), [
        ['Due now', '12', '30 s'],
        ['Waiting for a retry after failing on beta', '1', '20 min'],
      ]);
    });

    it('lists the push URLs disabled or failing, and the live nodes with their roles', async () => {
      const page = await dana.get('/admin');
      assert.deepEqual(rowsOf(page.text, 'Failing push URLs'), [
        ['ana', 'dlr', 'https://hooks.example.com/ana', 'disabled', '27/11/2026 12:00:30'],
        ['bob', 'incoming_sms', 'https://hooks.example.com/bob', 'failing (3 rounds)', '27/11/2026 12:55:30'],
      ]);
      const nodes = rowsOf(page.text, 'Nodes');
      assert.deepEqual(
        nodes.find((n) => n[0] === 'edge-1'),
        ['edge-1', 'api, receipts', '27/11/2026 13:00:28'],
      );
    });

    it('reads the same in Hebrew, right to left, and to a support operator', async () => {
      await sam.get('/admin/lang/he?back=/admin');
      const page = await sam.get('/admin');
      assert.equal(page.status, 200);
      assert.match(page.text, /<html lang="he" dir="rtl">/);
      assert.match(page.text, /<h2 id="traffic-now">תעבורה כעת<\/h2>/);
      assert.match(page.text, /data-flow="accepts">התקבלו<b>0\.5 לשנייה<\/b>/);
      assert.deepEqual(rowsOf(page.text, 'שיעור מסירה לפי ספק')[0], ['alpha', '75.0% מתוך 12', '75.0% מתוך 12']);
    });

    it('counts the current step live and the past steps again once the next step begins', async () => {
      const totals = async () => {
        const page = await dana.get('/admin');
        const json = /<script type="application\/json" id="traffic-data">([^<]*)<\/script>/.exec(page.text)?.[1];
        return JSON.parse(json ?? '{}').series[0].values.reduce((a: number, b: number) => a + b, 0);
      };
      assert.equal(await totals(), 41);
      await seedMessages(t, 2, { account: 'ana', createdAt: now - 20_000, state: 'queued' });
      await seedMessages(t, 4, { account: 'ana', createdAt: now - 3 * HOUR, state: 'queued' });
      assert.equal(await totals(), 43, 'the current step at once; a past step kept until the next step');
      now += 10 * MIN;
      assert.equal(await totals(), 47);
      now -= 10 * MIN;
    });

    it('sends a visitor without an operator session to the sign-in page', async () => {
      const page = await new AdminClient(t.httpsUrl).get('/admin');
      assert.equal(page.status, 303);
      assert.match(page.location ?? '', /^\/admin\/login/);
    });
  });
}
