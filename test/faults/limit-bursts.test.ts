// Limits under concurrent bursts over HTTP, on every store: 100 send_otp at once to one phone and app (one code per
// 30 s) accept exactly one; 50 at once over 10 apps of one phone (5 an hour) accept exactly 5; 200 wrong guesses at
// once over 5 codes of one phone count exactly 10 (the phone's hourly limit) and the handset-side state agrees;
// 30 concurrent getApiToken new never make more than 5 active tokens. Prints its figures (FAULTS lines).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { storeTargets } from '../helpers/stores.ts';
import type { TestService } from '../helpers/service.ts';
import { newSender, startSendingService, type Sender } from '../operations/send-helpers.ts';

const targets = await storeTargets();

/** How many replies had each status, as `{status: count}`. */
function tally(replies: Array<Record<string, any>>): Record<number, number> {
  const out: Record<number, number> = {};
  for (const r of replies) out[r.status] = (out[r.status] ?? 0) + 1;
  return out;
}

for (const target of targets) {
  describe(`limits under bursts (${target.name})`, () => {
    let t: TestService;
    let s: Sender;
    before(async () => {
      t = await startSendingService(target);
      s = await newSender(t, 'burster', 10_000);
    });
    after(() => t.close());

    const otp = (phone: string, appId = 1) => s.call('send_otp', { phone, source: 'Yona', app_id: appId });
    const codesTo = async (phone: string) =>
      (await t.service.store.db.selectFrom('otp_codes').select('id').where('phone', '=', phone).execute()).length;

    it('100 send_otp at once to one phone and app: exactly one accepted, one code stored', async () => {
      const replies = await Promise.all(Array.from({ length: 100 }, () => otp('0521230101')));
      const counts = tally(replies);
      console.log(
        `FAULTS otp resend burst (${target.name}): ${counts[0] ?? 0} of 100 accepted, ${counts[5] ?? 0} refused (5)`,
      );
      assert.deepEqual(counts, { 0: 1, 5: 99 });
      assert.equal(await codesTo('972521230101'), 1);
    });

    it('50 at once over 10 apps of one phone: exactly 5 accepted (5 an hour)', async () => {
      const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => otp('0521230102', (i % 10) + 1)));
      const counts = tally(replies);
      console.log(`FAULTS otp per-phone burst (${target.name}): ${counts[0] ?? 0} of 50 accepted (limit 5)`);
      assert.deepEqual(counts, { 0: 5, 5: 45 });
      assert.equal(await codesTo('972521230102'), 5);
    });

    it('200 wrong guesses at once over 5 codes of one phone: exactly 10 counted', async () => {
      for (let app = 1; app <= 5; app++) assert.equal((await otp('0521230103', app)).status, 0);
      const replies = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          s.call('validate_otp', { phone: '0521230103', code: '0000000', app_id: (i % 5) + 1 }),
        ),
      );
      const wrong = replies.filter((r) => /^Unverified code: wrong code/.test(r.message)).length;
      const failures = await t.service.store.db
        .selectFrom('otp_failures')
        .select('id')
        .where('phone', '=', '972521230103')
        .execute();
      const attempts = await t.service.store.db
        .selectFrom('otp_codes')
        .select((eb) => eb.fn.sum<number>('attempts').as('n'))
        .where('phone', '=', '972521230103')
        .executeTakeFirstOrThrow();
      console.log(`FAULTS otp guess burst (${target.name}): ${wrong} of 200 guesses compared (limit 10)`);
      assert.equal(wrong, 10);
      assert.equal(failures.length, 10);
      assert.equal(Number(attempts.n), 10);
      assert.ok(replies.every((r) => r.status === 12));
    });

    it('30 getApiToken new at once: at most 5 active tokens', async () => {
      const replies = await Promise.all(
        Array.from({ length: 30 }, () => s.call('getApiToken', { username: 'burster', action: 'new' })),
      );
      const active = await t.service.store.db
        .selectFrom('api_tokens as k')
        .innerJoin('accounts as a', 'a.id', 'k.account_id')
        .select('k.id')
        .where('a.username', '=', 'burster')
        .execute();
      const counts = tally(replies);
      console.log(
        `FAULTS token burst (${target.name}): ${counts[0] ?? 0} of 30 minted, ${active.length} active (limit 5)`,
      );
      assert.equal(active.length, 5);
      assert.deepEqual(counts, { 0: 4, 511: 26 });
    });
  });
}
