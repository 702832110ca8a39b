// The log an operator works from, from a real `yona serve` at the default level (info): each event of
// docs/logs.md appears once with its fields when provoked, times are ISO-8601, and no token, password, code or
// message body appears anywhere in the log.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { ConsoleClient } from '../helpers/console-client.ts';
import { duplicateKeys } from '../helpers/json-keys.ts';
import { startPushReceiver, waitFor, type PushReceiver } from '../helpers/push-receiver.ts';
import { lastLine, startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';
import { storeTargets } from '../helpers/stores.ts';

const PASSWORD = 'Log-Secret-Pw1';
const BODY_TEXT = 'Body-Secret-Text';

type Line = Record<string, unknown> & { msg: string; time: string; event?: string };

for (const target of await storeTargets()) {
  describe(`operator logs (${target.name}, real process)`, () => {
    let store: Awaited<ReturnType<typeof target.create>>;
    let serve: ServeProcess;
    let token = '';
    let receiver: PushReceiver;
    const lines = () =>
      serve
        .logs()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Line);
    const events = (name: string) => lines().filter((l) => l.event === name);
    const api = async (doc: unknown, auth = `Bearer ${token}`, body = JSON.stringify(doc)) => {
      const res = await request(`http://127.0.0.1:${serve.httpPort}/api`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body,
      });
      return (await res.body.json()) as { status: number };
    };

    before(async () => {
      store = await target.create();
      receiver = await startPushReceiver(() => 500);
      serve = await startServeProcess(store.env, {
        YONA_PUSH_ALLOW_PRIVATE: '1',
        YONA_PUSH_RETRY_BASE_MS: '50',
        YONA_PUSH_MAX_FAILURES: '2',
        YONA_SIM_RECEIPT_DELAY_MS: '10',
      });
      assert.equal(
        (await serve.cli('admin', 'create-account', 'ops', '--password', PASSWORD, '--credits', '100')).status,
        0,
      );
      assert.equal((await serve.cli('admin', 'verify-sender', 'ops', 'Yona')).status, 0);
      token = lastLine(await serve.cli('admin', 'create-token', 'ops'));
      assert.match(token, /^yona_/);
    });
    after(async () => {
      await serve?.stop();
      await receiver?.close();
      await store?.cleanup();
    });

    it('logs each refused API request once, with operation, account, client, status and text', async () => {
      assert.equal((await api({ balance: { user: { username: 'ops' } } }, 'Bearer yona_not-a-real-token')).status, 3);
      assert.equal((await api(undefined, `Bearer ${token}`, '{"balance": ')).status, 1);
      const unverified = {
        sms: { user: { username: 'ops' }, source: 'Nobody', message: BODY_TEXT, destinations: { phone: '0521234567' } },
      };
      assert.equal((await api(unverified)).status, 515);
      await waitFor(() => events('api.refused').length >= 3, 'three api.refused lines');
      const refused = events('api.refused');
      assert.equal(refused.length, 3, JSON.stringify(refused));
      const [badToken, malformed, unverifiedLine] = refused;
      assert.deepEqual(
        { operation: badToken.operation, account: badToken.account, client: badToken.client, status: badToken.status },
        { operation: 'balance', account: 'ops', client: '127.0.0.1', status: 3 },
      );
      assert.equal(typeof badToken.text, 'string');
      assert.ok((badToken.text as string).length > 0);
      assert.equal(malformed.status, 1);
      assert.equal(unverifiedLine.operation, 'sms');
      assert.equal(unverifiedLine.status, 515);
      assert.equal(unverifiedLine.level, 30, 'at info');
      assert.match(badToken.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'ISO-8601 times');
    });

    it('logs failed console sign-ins and the lockout', async () => {
      const browser = new ConsoleClient(`https://127.0.0.1:${serve.httpsPort}`);
      for (let i = 0; i < 5; i++) assert.notEqual((await browser.login('ops', `wrong-${PASSWORD}`)).status, 303);
      await waitFor(() => events('console.lockout').length === 1, 'a console.lockout line');
      // Four identical wrong passwords: the first is written, the three repeats are folded into a later count.
      const failed = events('console.signin_failed');
      assert.deepEqual(
        failed.map((l) => [l.account, l.client, l.reason]),
        [
          ['ops', '127.0.0.1', 'invalid'],
          ['ops', '127.0.0.1', 'locked'],
        ],
      );
      assert.equal(events('console.lockout')[0].account, 'ops');
    });

    it('logs each push failure with host, status, attempt and next retry, then the disablement', async () => {
      assert.equal((await api({ push_url: { user: { username: 'ops' }, type: 'dlr', url: receiver.url } })).status, 0);
      const sent = {
        sms: {
          user: { username: 'ops' },
          source: 'Yona',
          message: BODY_TEXT,
          destinations: { phone: ['0521234567', '0521234569'] },
        },
      };
      assert.equal((await api(sent)).status, 0);
      await waitFor(() => events('push.disabled').length === 1, 'a push.disabled line', 30_000);
      const failures = events('push.failed');
      assert.ok(failures.length >= 2, JSON.stringify(failures));
      const host = new URL(receiver.url).host;
      for (const f of failures) {
        assert.equal(f.account, 'ops');
        assert.equal(typeof f.registration, 'number');
        assert.equal(f.host, host);
        assert.equal(f.http_status, 500);
        assert.equal(typeof f.attempt, 'number');
      }
      assert.match(String(failures[0].next_retry), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/);
      const disabled = events('push.disabled')[0];
      assert.deepEqual([disabled.account, disabled.host], ['ops', host]);

      // The campaign of two recipients: one summary line, counted by delivery status.
      await waitFor(() => events('campaign.finished').length === 1, 'a campaign.finished line');
      const summary = events('campaign.finished')[0];
      assert.equal(summary.account, 'ops');
      assert.equal(summary.messages, 2);
      assert.equal(
        Object.values(summary.by_status as Record<string, number>).reduce((a, b) => a + b, 0),
        2,
      );
    });

    it('never logs a token, a password or a message body', () => {
      const all = serve.logs();
      for (const secret of [token, PASSWORD, `wrong-${PASSWORD}`, BODY_TEXT, 'yona_not-a-real-token'])
        assert.ok(!all.includes(secret), `${secret} appears in the log`);
    });

    it('writes each key once in a line, up to and including the shutdown, which removes no carrier', async () => {
      assert.equal(await serve.stop(), 0);
      const json = serve
        .logs()
        .split('\n')
        .filter((l) => l.startsWith('{'));
      assert.ok(json.some((l) => l.includes('"msg":"shutting down"')));
      const repeats = json.flatMap((l) => duplicateKeys(l).map((key) => `${key} in ${l}`));
      assert.deepEqual(repeats, []);
      assert.deepEqual(
        json.filter((l) => l.includes('removed or changed')),
        [],
      );
      assert.ok(
        json.some((l) => l.includes('"msg":"carrier stopped"')),
        'each carrier says it stopped',
      );
    });
  });
}
