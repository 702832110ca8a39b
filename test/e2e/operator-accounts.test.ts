// Accounts an operator manages from the CLI, against a real `yona serve` on every store: `yona admin accounts`
// (text and --json), suspend and resume (the API answers 511, the console refuses sign-in and sessions), close-account
// (refused while it has sub-accounts or campaigns scheduled for later; then tokens revoked, sign-in refused, data
// kept), credit of either sign with its reason in the ledger, and push URLs to private addresses allowed per account.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { ConsoleClient } from '../helpers/console-client.ts';
import { startPushReceiver, waitFor, type PushReceiver } from '../helpers/push-receiver.ts';
import { lastLine, startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';
import { storeTargets } from '../helpers/stores.ts';
import { cliOperatorName } from '../../src/cli/operator-app.ts';

// The name `yona admin` is audited (and its ledger entries written) under: the system user's.
const cliOperator = cliOperatorName();

const PASSWORD = 'Op-Accounts-Pw1';

type Reply = { status: number; message: string } & Record<string, unknown>;

for (const target of await storeTargets()) {
  describe(`operator account commands (${target.name}, real processes)`, () => {
    let store: Awaited<ReturnType<typeof target.create>>;
    let serve: ServeProcess;
    let receiver: PushReceiver;
    const tokens = new Map<string, string>();

    const api = async (doc: unknown, token: string | undefined): Promise<Reply> => {
      const res = await request(`http://127.0.0.1:${serve.httpPort}/api`, {
        method: 'POST',
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json' },
        body: JSON.stringify(doc),
      });
      return (await res.body.json()) as Reply;
    };
    const admin = async (...args: string[]) => {
      const run = await serve.cli('admin', ...args);
      return { ...run, out: run.stdout.trim() };
    };
    const ok = async (...args: string[]) => {
      const run = await admin(...args);
      assert.equal(run.status, 0, `yona admin ${args.join(' ')}: ${run.stderr}`);
      return run.out;
    };
    const createAccount = async (name: string, ...more: string[]) => {
      await ok('create-account', name, '--password', PASSWORD, ...more);
      tokens.set(name, lastLine(await serve.cli('admin', 'create-token', name)));
    };
    const balance = (name: string) => api({ balance: { user: { username: name } } }, tokens.get(name));
    const listed = async () =>
      JSON.parse(await ok('accounts', '--json')) as Array<{
        username: string;
        credits: number;
        state: string;
        suspension_reason: string | null;
        reseller: string | null;
        last_activity: string | null;
      }>;
    const entry = async (name: string) => (await listed()).find((a) => a.username === name);
    const console = () => new ConsoleClient(`https://127.0.0.1:${serve.httpsPort}`);

    before(async () => {
      store = await target.create();
      receiver = await startPushReceiver(() => 200);
      serve = await startServeProcess(store.env, { YONA_SIM_RECEIPT_DELAY_MS: '10' });
      await createAccount('acme', '--credits', '100', '--reseller');
      await createAccount('acme-sub', '--parent', 'acme');
      await createAccount('solo', '--credits', '50');
      await ok('verify-sender', 'solo', '0521110000');
    });
    after(async () => {
      await serve?.stop();
      await receiver?.close();
      await store?.cleanup();
    });

    it('lists accounts with balance, state, reseller and last activity (text and --json)', async () => {
      const sent = await api(
        {
          sms: {
            user: { username: 'solo' },
            source: '0521110000',
            message: 'hello',
            destinations: { phone: ['0521234567'] },
          },
        },
        tokens.get('solo'),
      );
      assert.equal(sent.status, 0, sent.message);
      const accounts = await listed();
      const solo = accounts.find((a) => a.username === 'solo');
      const sub = accounts.find((a) => a.username === 'acme-sub');
      assert.equal(solo?.state, 'active');
      assert.equal(solo?.credits, 49);
      assert.equal(solo?.reseller, null);
      assert.ok(solo?.last_activity && Date.now() - Date.parse(solo.last_activity) < 120_000, 'the send just made');
      assert.equal(sub?.reseller, 'acme');
      assert.equal(sub?.last_activity, null);
      const text = await ok('accounts');
      assert.match(text.split('\n')[0], /ACCOUNT\s+BALANCE\s+STATE\s+RESELLER\s+LAST ACTIVITY/);
      assert.match(text, /^acme-sub\s+0 credits, 0\.00 shekels\s+active\s+acme\s+never$/m);
      assert.match(text, /^solo\s+49 credits/m);
    });

    it('suspends an account: its token answers 511 and its console refuses it; resume restores both', async () => {
      await createAccount('paused', '--credits', '5');
      const browser = console();
      assert.equal((await browser.login('paused', PASSWORD)).status, 303);
      assert.equal((await browser.get('/console')).status, 200);

      const said = await ok('suspend', 'paused', '--reason', 'unpaid invoice');
      assert.match(said, /paused is suspended/);
      const refused = await balance('paused');
      assert.equal(refused.status, 511);
      assert.match(refused.message, /this account is suspended; ask your provider/);
      assert.doesNotMatch(refused.message, /yona/i);
      assert.notEqual((await browser.get('/console')).status, 200, 'the open session is refused');
      const login = await console().login('paused', PASSWORD);
      assert.equal(login.status, 403);
      assert.match(login.text, /This account is suspended or closed\. Contact your provider\./);
      const row = await entry('paused');
      assert.equal(row?.state, 'suspended');
      assert.equal(row?.suspension_reason, 'unpaid invoice');
      assert.match(await ok('accounts'), /^paused\s+5 credits, 0\.00 shekels\s+suspended \(unpaid invoice\)/m);

      assert.match(await ok('resume', 'paused'), /paused is resumed/);
      assert.equal((await balance('paused')).status, 0);
      assert.equal((await console().login('paused', PASSWORD)).status, 303);
      assert.equal((await entry('paused'))?.state, 'active');
      const again = await admin('resume', 'paused');
      assert.equal(again.status, 2);
      assert.match(again.stderr, /paused is not suspended/);
    });

    it("keeps a reseller from lifting the operator's suspension of its sub-account", async () => {
      await ok('suspend', 'acme-sub');
      const reseller = console();
      assert.equal((await reseller.login('acme', PASSWORD)).status, 303);
      await reseller.get('/console/subaccounts');
      await reseller.post('/console/subaccounts/resume', { username: 'acme-sub' });
      assert.equal((await balance('acme-sub')).status, 511);
      await ok('resume', 'acme-sub');
      assert.equal((await balance('acme-sub')).status, 0);
    });

    it('refuses to close an account with sub-accounts or scheduled campaigns, then closes it keeping its data', async () => {
      const withSubs = await admin('close-account', 'acme');
      assert.equal(withSubs.status, 2);
      assert.match(withSubs.stderr, /acme has sub-accounts \(acme-sub\): close them first/);

      await createAccount('later', '--credits', '10');
      await ok('verify-sender', 'later', '0521110001');
      const scheduled = await api(
        {
          sms: {
            user: { username: 'later' },
            source: '0521110001',
            message: 'tomorrow',
            destinations: { phone: '0521234567' },
            timing: '01/01/40 10:00',
          },
        },
        tokens.get('later'),
      );
      assert.equal(scheduled.status, 0, scheduled.message);
      const busy = await admin('close-account', 'later');
      assert.equal(busy.status, 2);
      assert.match(busy.stderr, /later has 1 scheduled campaign still to go out: cancel it first/);
      const cancelled = await api(
        { cancel: { user: { username: 'later' }, campaign_id: scheduled.campaign_id } },
        tokens.get('later'),
      );
      assert.equal(cancelled.status, 0, cancelled.message);

      assert.match(await ok('close-account', 'later'), /later is closed: 1 API token revoked/);
      const refused = await balance('later');
      assert.equal(refused.status, 3, 'the token is gone');
      const login = await console().login('later', PASSWORD);
      assert.equal(login.status, 403);
      assert.equal((await entry('later'))?.state, 'closed');
      assert.match(await ok('ledger', 'later'), /operator: opening balance/, 'its data is kept');
      const campaigns = await admin('close-account', 'later');
      assert.equal(campaigns.status, 2);
      assert.match(campaigns.stderr, /already closed/);
      assert.equal((await admin('resume', 'later')).status, 2);
      const token = await admin('create-token', 'later');
      assert.equal(token.status, 2);
      assert.match(token.stderr, /later is closed: a closed account gets no tokens/);
    });

    it('credits either sign with a reason in the ledger, and refuses a debit below zero', async () => {
      await createAccount('payer', '--credits', '20');
      assert.match(await ok('credit', 'payer', '30', '--reason', 'monthly top-up'), /payer now has 50 credits/);
      assert.match(await ok('credit', 'payer', '-15', '--reason', 'refund reversed'), /payer now has 35 credits/);
      const overdraw = await admin('credit', 'payer', '-36', '--reason', 'too much');
      assert.equal(overdraw.status, 2);
      assert.match(overdraw.stderr, /payer has 35 credits: a debit of 36 would take the balance below zero/);
      const noReason = await admin('credit', 'payer', '5');
      assert.equal(noReason.status, 2);
      assert.match(noReason.stderr, /missing --reason/);
      const ledger = JSON.parse(await ok('ledger', 'payer', '--json')) as {
        balances: { credits: number };
        ledger_sum: { credits: number };
        entries: Array<{ amount: number; reason: string }>;
      };
      assert.deepEqual(
        ledger.entries.map((e) => [e.amount, e.reason]),
        [
          [20, 'operator: opening balance'],
          [30, `operator ${cliOperator}: monthly top-up`],
          [-15, `operator ${cliOperator}: refund reversed`],
        ],
      );
      assert.equal(ledger.balances.credits, 35);
      assert.equal(ledger.ledger_sum.credits, 35);
      assert.match(await ok('add-credits', 'payer', '5'), /payer now has 40 credits/, 'add-credits still works');
    });

    it('allows push URLs to private addresses per account, and the pusher delivers to them', async () => {
      const push = (name: string) =>
        api(
          { push_url: { user: { username: name }, action: 'add', type: 'dlr', url: receiver.url } },
          tokens.get(name),
        );
      const refused = await push('solo');
      assert.equal(refused.status, 2);
      assert.match(refused.message, /loopback address 127\.0\.0\.1 is not public/);
      assert.match(await ok('push', 'allow-private', 'solo', 'on'), /may now reach private and loopback addresses/);
      const added = await push('solo');
      assert.equal(added.status, 0, added.message);
      assert.equal((await push('acme')).status, 2, 'only for that account');
      const sent = await api(
        {
          sms: {
            user: { username: 'solo' },
            source: '0521110000',
            message: 'dlr me',
            destinations: { phone: '0527654321' },
          },
        },
        tokens.get('solo'),
      );
      assert.equal(sent.status, 0, sent.message);
      await waitFor(() => receiver.received.length > 0, 'a dlr push to the loopback receiver', 30_000);
      assert.match(await ok('push', 'allow-private', 'solo', 'off'), /must reach public addresses/);
    });
  });
}
