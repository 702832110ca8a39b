// One account's refusal never fails another's request, on every store, over HTTP: an account with 30 credits
// sends 100 one-recipient sms at once while other accounts send, transfer credits to a sub-account, block
// numbers and create contact lists at the same moment. The short account gets exactly 30 accepted and 70
// refused for credit (4), its balance 0 and its ledger the 30 debits; nobody gets 998, and every other request
// is answered and takes effect as it would alone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import {
  creditLedger,
  messageCount,
  newResellerWithSubSender,
  newSender,
  startSendingService,
  type Sender,
} from '../operations/send-helpers.ts';

const targets = await storeTargets();
const SHORT_SENDS = 100;
const SHORT_CREDITS = 30;
/** Requests of each other kind (sms, transfer, block, new list): 100 in all. */
const EACH = 25;

for (const target of targets) {
  describe(`one account's refusal never fails another's request (${target.name})`, () => {
    let t: TestService;
    let short: Sender;
    let sender: Sender;
    let blocker: Sender;
    let lister: Sender;
    let resellerToken: string;

    before(async () => {
      t = await startSendingService(target);
      short = await newSender(t, 'short', SHORT_CREDITS);
      sender = await newSender(t, 'sender', 1000);
      blocker = await newSender(t, 'blocker', 0);
      lister = await newSender(t, 'lister', 0);
      resellerToken = await newResellerWithSubSender(t, 'reseller', 'sub');
      await t.admin('add-credits', 'reseller', '1000');
    });
    after(() => t.close());

    it(`${SHORT_SENDS} sends on ${SHORT_CREDITS} credits beside ${4 * EACH} other requests: 0 x 998, exactly ${SHORT_CREDITS} accepted`, async () => {
      const phone = (base: number, i: number) => `05${base}${String(i).padStart(7, '0')}`;
      const shortSends = Array.from(
        { length: SHORT_SENDS },
        (_, i) => () => short.sms({ destinations: { phone: phone(0, i) }, message: `short ${i}` }),
      );
      const others = Array.from({ length: EACH }, (_, i) => [
        { kind: 'sms', run: () => sender.sms({ destinations: { phone: phone(2, i) }, message: `other ${i}` }) },
        {
          kind: 'updateAmountSub',
          run: () =>
            t.api(
              'updateAmountSub',
              { user: { username: 'reseller' }, userDetails: { username: 'sub' }, amount: '1' },
              { token: resellerToken },
            ),
        },
        { kind: 'addNumBL', run: () => blocker.call('addNumBL', { phones: { phone: phone(3, i) } }) },
        {
          kind: 'newCL',
          run: () =>
            lister.call('newCL', { cl: { name: `list ${i}`, destinations: { destination: { phone: phone(4, i) } } } }),
        },
      ]).flat();
      // Connections opened first (undici keeps them), so the burst reaches the service at once rather than
      // as connections come up: the short account's requests then share commits with everyone else's.
      await Promise.all(Array.from({ length: 2 * SHORT_SENDS }, () => sender.call('balance', {})));
      // Interleaved, all at once.
      const requests = shortSends.flatMap((run, i) => [{ kind: 'short', run }, ...(others[i] ? [others[i]] : [])]);
      const replies = await Promise.all(requests.map(async (r) => ({ kind: r.kind, reply: await r.run() })));

      const statuses = (kind: string) => replies.filter((r) => r.kind === kind).map((r) => r.reply.status as number);
      const unknown = replies.filter((r) => r.reply.status === 998);
      assert.equal(unknown.length, 0, `998 answers: ${JSON.stringify(unknown.slice(0, 3))}`);
      const own = statuses('short');
      assert.equal(own.filter((s) => s === 0).length, SHORT_CREDITS);
      assert.equal(own.filter((s) => s === 4).length, SHORT_SENDS - SHORT_CREDITS);
      assert.equal((await short.balance()).credits, 0);
      assert.equal(await messageCount(t, 'short'), SHORT_CREDITS);
      assert.deepEqual(await creditLedger(t, 'short'), [SHORT_CREDITS, ...Array(SHORT_CREDITS).fill(-1)]);

      // Everyone else: answered and done as alone.
      assert.deepEqual(statuses('sms'), Array(EACH).fill(0));
      assert.deepEqual(statuses('updateAmountSub'), Array(EACH).fill(0));
      assert.deepEqual(statuses('addNumBL'), Array(EACH).fill(946));
      assert.deepEqual(statuses('newCL'), Array(EACH).fill(0));
      assert.equal((await sender.balance()).credits, 1000 - EACH);
      assert.equal(await messageCount(t, 'sender'), EACH);
      const db = t.service.store.db;
      const credits = async (username: string) =>
        Number(
          (await db.selectFrom('accounts').select('credits').where('username', '=', username).executeTakeFirstOrThrow())
            .credits,
        );
      assert.equal(await credits('sub'), EACH);
      assert.equal(await credits('reseller'), 1000 - EACH);
      const rowsOf = async (table: 'blocklist' | 'contact_lists', accountId: number) =>
        (await db.selectFrom(table).select('account_id').where('account_id', '=', accountId).execute()).length;
      assert.equal(await rowsOf('blocklist', await t.accountId('blocker')), EACH);
      assert.equal(await rowsOf('contact_lists', await t.accountId('lister')), EACH);
    });
  });
}
