// Reseller sub-accounts end to end on every store, over HTTP in JSON and XML: addSub with each refusal status,
// credit and money transfers both ways (never below zero on either side), getBlanceSubs, who may act for whom,
// and the ledger (`yona admin ledger`): every movement two rows, balances equal to the ledger sums.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConsoleClient } from '../helpers/console-client.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { xmlField, xmlStatus } from '../operations/send-helpers.ts';

const targets = await storeTargets();

for (const target of targets) {
  describe(`reseller sub-accounts (${target.name})`, () => {
    let t: TestService;
    let reseller: { username: string; token: string };
    const asReseller = (root: string, doc: Record<string, unknown>) =>
      t.api(root, { user: { username: 'shop' }, ...doc }, { token: reseller.token });
    const details = (over: Record<string, unknown> = {}) => ({
      userDetails: {
        name: 'Branch One',
        username: 'branch1',
        password: 'branch-pw-1',
        source: 'Branch1',
        amount: 100,
        ...over,
      },
    });
    const balanceOf = async (username: string) => {
      const row = await t.service.store.db
        .selectFrom('accounts')
        .select(['credits', 'intl_agorot'])
        .where('username', '=', username)
        .executeTakeFirstOrThrow();
      return { credits: Number(row.credits), agorot: Number(row.intl_agorot) };
    };

    before(async () => {
      t = await startTestService(target);
      reseller = await t.account('shop', ['--reseller', '--international', '20.00']);
      await t.account('plain');
    });
    after(() => t.close());

    it('addSub creates a sub-account and moves its credits in one transaction as two ledger rows', async () => {
      const reply = await asReseller('addSub', details({ otpPhone: '0521110001' }));
      assert.equal(reply.status, 0, reply.message);
      assert.equal(reply.message, 'Sub-account branch1 created with 100 credits');
      assert.deepEqual(await balanceOf('shop'), { credits: 900, agorot: 2000 });
      assert.deepEqual(await balanceOf('branch1'), { credits: 100, agorot: 0 });
      const sub = await t.service.store.db
        .selectFrom('accounts')
        .selectAll()
        .where('username', '=', 'branch1')
        .executeTakeFirstOrThrow();
      assert.equal(Number(sub.parent_id), await t.accountId('shop'));
      assert.equal(Number(sub.is_reseller), 0);
      assert.equal(sub.otp_phone, '972521110001');
      assert.match(sub.password_hash, /^\$argon2id\$/);
      // The hash (made before the transaction) is of the password given: the sub-account signs in to the console with it.
      const signIn = async (password: string) =>
        (await new ConsoleClient(t.httpsUrl).login('branch1', password)).status;
      assert.equal(await signIn('branch-pw-1'), 303);
      assert.equal(await signIn('branch-pw-2'), 401);
      const lines = await t.admin('ledger', 'branch1', '--json');
      const ledger = JSON.parse(lines[0]);
      assert.deepEqual(
        ledger.entries.map((e: any) => [e.amount, e.reason, e.ref_type, e.ref_id]),
        [[100, 'transfer: from reseller shop', 'account', await t.accountId('shop')]],
      );
      const shopLedger = JSON.parse((await t.admin('ledger', 'shop', '--json'))[0]);
      assert.deepEqual(shopLedger.entries.at(-1).amount, -100);
      assert.deepEqual(shopLedger.entries.at(-1).ref_id, await t.accountId('branch1'));
      assert.deepEqual(shopLedger.ledger_sum, { credits: 900, international_agorot: 2000 });
      assert.deepEqual(shopLedger.balances, { credits: 900, international_agorot: 2000 });
      // The sub-account's source is its sender: the reseller's token sends from it for the sub-account.
      const sent = await t.api(
        'sms',
        { user: { username: 'branch1' }, source: 'Branch1', destinations: { phone: '0521110002' }, message: 'hi' },
        { token: reseller.token },
      );
      assert.equal(sent.status, 0, sent.message);
    });

    it('refuses addSub with 511 for a non-reseller, 994 for a taken username and the length and amount statuses', async () => {
      const plainToken = (await t.admin('create-token', 'plain')).at(-1)!;
      const notReseller = await t.api(
        'addSub',
        { user: { username: 'plain' }, ...details({ username: 'branchx' }) },
        { token: plainToken },
      );
      assert.equal(notReseller.status, 511);
      const cases: Array<[Record<string, unknown>, number, RegExp]> = [
        [{ username: 'branch1' }, 994, /^Username already exists: "branch1"$/],
        [{ username: 'ab' }, 995, /^Username length is invalid: username must be 3 to 32 characters$/],
        [{ username: 'b'.repeat(33) }, 995, /^Username length is invalid/],
        [{ password: '12345' }, 993, /^Password length is invalid: password must be 6 to 128 characters$/],
        [{ name: 'n'.repeat(51) }, 996, /^Name length is invalid: name must be 1 to 50 characters, got 51$/],
        [{ source: 'TooLongSender1' }, 992, /^Source length is invalid: source must be 1 to 11 characters$/],
        [{ amount: '12a' }, 991, /^Amount must contain only digits: userDetails.amount is "12a"$/],
        [{ amount: '-5' }, 991, /^Amount must contain only digits/],
        [{ amount: 901 }, 990, /^Amount must be smaller than credit: the reseller has 900 credits, asked to give 901$/],
        [{ otpPhone: '031234567' }, 933, /otpPhone "031234567" is not a mobile number/],
      ];
      for (const [over, status, message] of cases) {
        const reply = await asReseller('addSub', details({ username: 'branch2', ...over }));
        assert.equal(reply.status, status, `${JSON.stringify(over)}: ${reply.message}`);
        assert.match(reply.message, message);
      }
      const missing = await asReseller('addSub', {
        userDetails: { username: 'branch2', password: 'pw-123456', source: 'B', amount: 1 },
      });
      assert.deepEqual([missing.status, missing.message], [2, 'Missing required field: userDetails.name']);
      assert.deepEqual(await balanceOf('shop'), { credits: 900, agorot: 2000 });
      assert.equal(
        await t.service.store.db
          .selectFrom('accounts')
          .select('id')
          .where('username', '=', 'branch2')
          .executeTakeFirst(),
        undefined,
      );
    });

    it('addSub in XML', async () => {
      const res = await t.post(
        '<addSub><user><username>shop</username></user><userDetails><name>סניף</name><username>branch3</username><password>pw-branch-3</password><source>0501234567</source><amount>50</amount></userDetails></addSub>',
        { contentType: 'application/xml', token: reseller.token },
      );
      assert.equal(xmlStatus(res.text), 0, res.text);
      assert.deepEqual(await balanceOf('branch3'), { credits: 50, agorot: 0 });
      const dup = await t.post(
        '<addSub><user><username>shop</username></user><userDetails><name>x</name><username>branch3</username><password>pw-branch-3</password><source>S</source><amount>1</amount></userDetails></addSub>',
        { contentType: 'application/xml', token: reseller.token },
      );
      assert.equal(xmlStatus(dup.text), 994);
    });

    it('updateAmountSub gives and takes back credits and money, never below zero on either side', async () => {
      const give = await asReseller('updateAmountSub', {
        userDetails: { username: 'branch1' },
        amount: 40,
        amount_int: '5.50',
      });
      assert.equal(give.status, 0, give.message);
      // branch1 spent one of its 100 credits on an sms above.
      assert.deepEqual([give.balance, give.international_balance], ['139', '5.50']);
      assert.deepEqual(await balanceOf('shop'), { credits: 810, agorot: 1450 });
      const back = await asReseller('updateAmountSub', { userDetails: { username: 'branch1', amount: '-139' } });
      assert.equal(back.status, 0, back.message);
      assert.deepEqual(await balanceOf('branch1'), { credits: 0, agorot: 550 });
      assert.deepEqual(await balanceOf('shop'), { credits: 949, agorot: 1450 });
      const tooMuchBack = await asReseller('updateAmountSub', {
        userDetails: { username: 'branch1' },
        amount_int: '-5.51',
      });
      assert.deepEqual(
        [tooMuchBack.status, tooMuchBack.message],
        [990, 'Amount must be smaller than credit: the sub-account branch1 has less than 5.51 shekels'],
      );
      const tooMuch = await asReseller('updateAmountSub', { userDetails: { username: 'branch1' }, amount: 950 });
      assert.deepEqual(
        [tooMuch.status, tooMuch.message],
        [990, 'Amount must be smaller than credit: the reseller has less than 950 credits'],
      );
      // Both movements or neither: money given, then credits refused, leaves the money where it was.
      const half = await asReseller('updateAmountSub', {
        userDetails: { username: 'branch1' },
        amount: 950,
        amount_int: '1',
      });
      assert.equal(half.status, 990);
      assert.deepEqual(await balanceOf('branch1'), { credits: 0, agorot: 550 });
      assert.equal(
        (await asReseller('updateAmountSub', { userDetails: { username: 'branch1' }, amount: '1.5' })).status,
        991,
      );
      assert.equal(
        (await asReseller('updateAmountSub', { userDetails: { username: 'branch1' }, amount_int: 'ten' })).status,
        991,
      );
      assert.equal((await asReseller('updateAmountSub', { userDetails: { username: 'branch1' } })).status, 2);
      assert.equal(
        (await asReseller('updateAmountSub', { userDetails: { username: 'plain' }, amount: 1 })).status,
        503,
      );
      const xml = await t.post(
        '<updateAmountSub><user><username>shop</username></user><userDetails><username>branch3</username></userDetails><amount>-10</amount></updateAmountSub>',
        { contentType: 'application/xml', token: reseller.token },
      );
      assert.equal(xmlStatus(xml.text), 0, xml.text);
      assert.equal(xmlField(xml.text, 'balance'), '40');
    });

    it('getBlanceSubs lists each sub-account with its balances, in JSON and XML', async () => {
      const reply = await asReseller('getBlanceSubs', {});
      assert.equal(reply.status, 0);
      assert.deepEqual(reply.subs, [
        { username: 'branch1', name: 'Branch One', balance: '0', international_balance: '5.50' },
        { username: 'branch3', name: 'סניף', balance: '40', international_balance: '0.00' },
      ]);
      const xml = await t.post('<getBlanceSubs><user><username>shop</username></user></getBlanceSubs>', {
        contentType: 'application/xml',
        token: reseller.token,
      });
      assert.match(
        xml.text,
        /<subs><sub><username>branch1<\/username><name>Branch One<\/name><balance>0<\/balance><international_balance>5.50<\/international_balance><\/sub><sub><username>branch3<\/username>/,
      );
    });

    it('a reseller acts for its sub-accounts; a sub-account never for its parent or a sibling (11), a stranger is 503', async () => {
      const forSub = await t.api('balance', { user: { username: 'branch3' } }, { token: reseller.token });
      assert.deepEqual([forSub.status, forSub.balance], [0, '40']);
      assert.equal((await t.api('balance', { user: { username: 'plain' } }, { token: reseller.token })).status, 503);
      const subToken = (await t.admin('create-token', 'branch1')).at(-1)!;
      assert.equal((await t.api('balance', { user: { username: 'branch1' } }, { token: subToken })).status, 0);
      assert.equal((await t.api('balance', { user: { username: 'shop' } }, { token: subToken })).status, 11);
      assert.equal((await t.api('balance', { user: { username: 'branch3' } }, { token: subToken })).status, 11);
      assert.equal((await t.api('getBlanceSubs', { user: { username: 'branch1' } }, { token: subToken })).status, 511);
      assert.equal(
        (
          await t.api(
            'addSub',
            { user: { username: 'branch1' }, ...details({ username: 'branch9' }) },
            { token: subToken },
          )
        ).status,
        511,
      );
    });

    it('prices nothing in a dry run: addSub on /api/test creates no account and moves no credit', async () => {
      const before = await balanceOf('shop');
      const reply = await t.api(
        'addSub',
        { user: { username: 'shop' }, ...details({ username: 'branch4', amount: 5 }) },
        { token: reseller.token, dryRun: true },
      );
      assert.equal(reply.status, 0);
      assert.deepEqual(await balanceOf('shop'), before);
      assert.equal(
        await t.service.store.db
          .selectFrom('accounts')
          .select('id')
          .where('username', '=', 'branch4')
          .executeTakeFirst(),
        undefined,
      );
    });

    it('yona admin ledger prints every movement with its reason and reference, and the balances it adds up to', async () => {
      const lines = await t.admin('ledger', 'shop');
      assert.match(lines[0], /\+1000 credits {2}operator: opening balance \[operator\]$/);
      assert.ok(
        lines.some((l) => /-100 credits {2}transfer: to sub-account branch1 \[account \d+\]$/.test(l)),
        lines.join('\n'),
      );
      assert.ok(
        lines.some((l) => /\+139 credits {2}transfer: taken back from sub-account branch1 \[account \d+\]$/.test(l)),
        lines.join('\n'),
      );
      assert.match(lines.at(-1)!, /^shop: \d+ credits, [\d.]+ shekels \(ledger sum: \d+ credits, [\d.]+ shekels\)$/);
      const [, credits, shekels, sumCredits, sumShekels] =
        /^shop: (\d+) credits, ([\d.]+) shekels \(ledger sum: (\d+) credits, ([\d.]+) shekels\)$/.exec(lines.at(-1)!)!;
      assert.deepEqual([credits, shekels], [sumCredits, sumShekels]);
      await assert.rejects(t.admin('ledger', 'nobody'), /no account named "nobody"/);
      await assert.rejects(t.admin('ledger', 'shop', '--csv'), /unknown option --csv/);
    });
  });
}
