// The operator's message log at /admin/messages on every store: messages of every account, newest first, with the
// customer log's outcomes (failed: failed, blocked or not delivered; pending: still on its way), filtered by
// account, carrier and part of a number, and paged by the "older" link without repeating or skipping a message.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AdminClient, enrolledSecrets } from '../../helpers/admin-client.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { storeTargets } from '../../helpers/stores.ts';

type Outcome = { state: 'done' | 'skipped' | 'queued'; status: number | null };
const DELIVERED: Outcome = { state: 'done', status: 102 };
const NOT_DELIVERED: Outcome = { state: 'done', status: 101 };
const BLOCKED: Outcome = { state: 'skipped', status: 201 };
const QUEUED: Outcome = { state: 'queued', status: null };

const phonesOf = (text: string) => [...text.matchAll(/<span dir="ltr">(\d+)<\/span>/g)].map((m) => m[1]);

for (const target of await storeTargets()) {
  describe(`operator console message log (${target.name})`, () => {
    let t: TestService;
    const now = Date.UTC(2026, 10, 27, 10, 0, 0);
    let dana: AdminClient;

    /** Stores a message of the account accepted `minutesAgo`, as the send path and the carrier left it. */
    async function message(username: string, phone: string, minutesAgo: number, carrier: string | null, o: Outcome) {
      const db = t.service.store.db;
      const accountId = await t.accountId(username);
      const at = now - minutesAgo * 60_000;
      const campaign = await db
        .insertInto('campaigns')
        .values({
          account_id: accountId,
          name: 'Log',
          kind: 'sms',
          source: 'Yona',
          state: 'sent',
          scheduled_at: null,
          recipients: 1,
          credits_charged: 1,
          agorot_charged: 0,
          options: '{}',
          created_at: at,
          released_at: at,
          finished_at: at,
          cancelled_at: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await db
        .insertInto('messages')
        .values({
          campaign_id: Number(campaign.id),
          account_id: accountId,
          external_id: null,
          phone,
          source: 'Yona',
          text: 'Hello',
          parts: 1,
          cost_credits: 1,
          cost_agorot: 0,
          state: o.state,
          status: o.status as never,
          status_at: o.status === null ? null : at + 5000,
          attempts: 1,
          next_attempt_at: at,
          lease_until: null,
          carrier,
          error: null,
          created_at: at,
          submitted_at: o.state === 'done' ? at : null,
        })
        .execute();
    }

    before(async () => {
      enrolledSecrets.clear();
      t = await startTestService(target, { clock: () => now });
      await t.account('alice');
      await t.account('bob');
      await t.admin('create-operator', 'dana', '--password', 'dana-pw-123');
      dana = new AdminClient(t.httpsUrl);
      assert.equal((await dana.signIn('dana', 'dana-pw-123', now)).status, 303);
      await message('alice', '972501110001', 1, 'cellcom', DELIVERED);
      await message('alice', '972501110002', 2, 'cellcom', NOT_DELIVERED);
      await message('bob', '972501110003', 3, null, BLOCKED);
      await message('bob', '972501110004', 4, null, QUEUED);
      await message('bob', '972507770005', 5, 'partner', DELIVERED);
      // Older traffic: 60 delivered messages of bob's, two of them accepted in the same millisecond.
      for (let i = 0; i < 60; i++)
        await message('bob', `9725222${String(i).padStart(5, '0')}`, 60 + i, 'partner', DELIVERED);
      await message('alice', '972523330000', 60, 'partner', DELIVERED);
    });
    after(() => t?.close());

    it('shows every outcome of the customer log: failed, blocked and not delivered alike; pending; delivered', async () => {
      const failed = await dana.get('/admin/messages?status=failed');
      assert.equal(failed.status, 200);
      assert.deepEqual(phonesOf(failed.text), ['972501110002', '972501110003']);
      assert.deepEqual(phonesOf((await dana.get('/admin/messages?status=pending')).text), ['972501110004']);
      const delivered = phonesOf((await dana.get('/admin/messages?status=delivered')).text);
      assert.deepEqual(delivered.slice(0, 2), ['972501110001', '972507770005']);
    });

    it('filters by account, carrier and part of a number', async () => {
      const alice = phonesOf((await dana.get('/admin/messages?account=alice')).text);
      assert.deepEqual(alice, ['972501110001', '972501110002', '972523330000']);
      const cellcom = phonesOf((await dana.get('/admin/messages?carrier=cellcom')).text);
      assert.deepEqual(cellcom, ['972501110001', '972501110002']);
      assert.deepEqual(phonesOf((await dana.get('/admin/messages?phone=777')).text), ['972507770005']);
      assert.deepEqual(phonesOf((await dana.get('/admin/messages?account=bob&phone=0111')).text), [
        '972501110003',
        '972501110004',
      ]);
      assert.deepEqual(phonesOf((await dana.get('/admin/messages?account=nobody')).text), []);
    });

    it('pages to older messages without repeating or skipping one', async () => {
      const first = await dana.get('/admin/messages');
      const older = /href="(\/admin\/messages\?before=[^"]+)"/.exec(first.text)?.[1].replace(/&amp;/g, '&');
      assert.ok(older, 'an older page is offered');
      const second = await dana.get(older);
      const all = [...phonesOf(first.text), ...phonesOf(second.text)];
      assert.equal(phonesOf(first.text).length, 50);
      assert.equal(all.length, 66);
      assert.equal(new Set(all).size, 66);
      assert.doesNotMatch(second.text, /before=/, 'no page after the last');
    });
  });
}
