// Operator alerts end to end on every store: `yona serve` (a child process, alerts evaluated every 200 ms with
// one-second "minutes") binds a `yona smsc-sim` process; thresholds and the webhook are set with `yona admin
// alerts`. The simulator killed, `alert.raised` (carrier-down) is logged no sooner than the threshold's minutes,
// shows in `yona admin alerts list`, and the operator webhook receives a post signed with its secret; the
// simulator back on its port, `alert.cleared` is logged and posted, and no alert is raised twice. Receipts saying
// "not delivered" (destinations the simulator fails) push the carrier's delivery rate under its threshold
// (`alert.raised`, delivery-rate, posted signed); enough delivered messages after it clear it.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startPushReceiver, waitFor, type PushReceiver } from '../helpers/push-receiver.ts';
import { startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';
import { startSmscSimProcess, type SmscSimProcess } from '../helpers/smsc-sim-process.ts';
import { storeTargets } from '../helpers/stores.ts';

const SECRET = 'alert-secret-0123456789';
const MINUTE_MS = 1000;
const DOWN_MINUTES = 2;

function verify(body: string, timestamp: string, signature: string): boolean {
  return signature === `v1=${createHmac('sha256', SECRET).update(`${timestamp}.${body}`).digest('hex')}`;
}

const targets = await storeTargets();
for (const target of targets) {
  describe(`operator alerts (${target.name})`, () => {
    let sim: SmscSimProcess;
    let serve: ServeProcess;
    let hook: PushReceiver;
    let cleanup: () => Promise<void>;
    let carriersFile: string;
    let token: string;

    const cli = async (...args: string[]) => {
      const run = await serve.cli('admin', 'alerts', ...args);
      assert.equal(run.status, 0, run.stderr);
      return run.stdout;
    };
    const lines = (event: string) =>
      serve
        .logs()
        .split('\n')
        .filter((l) => l.includes(`"event":"${event}"`))
        .map((l) => JSON.parse(l) as Record<string, unknown>);

    before(async () => {
      sim = await startSmscSimProcess();
      hook = await startPushReceiver();
      const created = await target.create();
      cleanup = created.cleanup;
      carriersFile = join(created.env.YONA_DATA_DIR, 'carriers.json');
      writeFileSync(
        carriersFile,
        JSON.stringify({
          carriers: [
            {
              name: 'a',
              host: '127.0.0.1',
              port: sim.smppPort,
              systemId: 'yona',
              password: 'secret',
              binds: 1,
              downGraceMs: 200,
              reconnectBaseMs: 100,
              reconnectMaxMs: 300,
            },
          ],
          routes: { default: 'a' },
        }),
      );
      serve = await startServeProcess(created.env, {
        YONA_CARRIERS_FILE: carriersFile,
        YONA_ALERT_INTERVAL_MS: '200',
        YONA_ALERT_MINUTE_MS: String(MINUTE_MS),
        YONA_NODE_LEASE_MS: '3000',
      });
      const created2 = await serve.cli(
        'admin',
        'create-account',
        'ops',
        '--password',
        'ops-pw-1234',
        '--credits',
        '1000',
      );
      assert.equal(created2.status, 0, created2.stderr);
      const tok = await serve.cli('admin', 'create-token', 'ops');
      assert.equal(tok.status, 0, tok.stderr);
      token = tok.stdout.trim().split('\n').at(-1)!;
      assert.equal((await serve.cli('admin', 'verify-sender', 'ops', 'Yona')).status, 0);
    });
    const send = async (phones: string[]) => {
      const res = await fetch(`http://127.0.0.1:${serve.httpPort}/api`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          sms: { user: { username: 'ops' }, source: 'Yona', destinations: { phone: phones }, message: 'rate check' },
        }),
      });
      const reply = (await res.json()) as { status: number };
      assert.equal(reply.status, 0, JSON.stringify(reply));
    };
    const ofKind = (event: string, kind: string) => lines(event).filter((l) => l.kind === kind);
    after(async () => {
      await serve?.stop();
      await sim?.stop();
      await hook?.close();
      await cleanup?.();
    });

    it('sets thresholds and the webhook from the CLI, refusing what is wrong', async () => {
      assert.match(
        await cli('set', 'carrier-down', '--minutes', String(DOWN_MINUTES)),
        /carrier-down: none -> carrier down for 2 min/,
      );
      assert.match(await cli('set', 'delivery-rate', '--below', '90', '--minutes', '10'), /below 90% over 10 min/);
      assert.match(
        await cli('webhook', `${hook.url}/alerts`, '--secret', SECRET),
        /webhook: none -> http:\/\/127\.0\.0\.1/,
      );
      const wrong = await serve.cli('admin', 'alerts', 'set', 'delivery-rate', '--minutes', '5');
      assert.notEqual(wrong.status, 0);
      assert.match(wrong.stderr, /percent/);
      const short = await serve.cli('admin', 'alerts', 'webhook', hook.url, '--secret', 'short');
      assert.notEqual(short.status, 0);
      assert.match(short.stderr, /at least 16 characters/);
      const list = JSON.parse(await cli('list', '--json')) as { rules: Array<{ kind: string }>; webhook: string };
      assert.deepEqual(
        list.rules.map((r) => r.kind),
        ['carrier-down', 'delivery-rate'],
      );
      assert.equal(list.webhook, `${hook.url}/alerts`);
      // The carrier is up: nothing is raised.
      await new Promise((r) => setTimeout(r, 1000));
      assert.equal(lines('alert.raised').length, 0);
    });

    it('a killed simulator raises carrier-down after its minutes, posted signed to the webhook', async () => {
      const killedAt = Date.now();
      await sim.stop();
      await waitFor(() => lines('alert.raised').length > 0, 'the alert.raised line', 20_000);
      const raisedAfter = Date.now() - killedAt;
      const [raised] = lines('alert.raised');
      assert.equal(raised.kind, 'carrier-down');
      assert.equal(raised.subject, 'a');
      assert.equal(raised.threshold, DOWN_MINUTES);
      assert.ok(Number(raised.value) >= DOWN_MINUTES, JSON.stringify(raised));
      assert.ok(raisedAfter >= DOWN_MINUTES * MINUTE_MS, `raised after ${raisedAfter} ms`);
      assert.ok(raisedAfter < DOWN_MINUTES * MINUTE_MS + 10_000, `raised after ${raisedAfter} ms`);

      await waitFor(() => hook.received.length > 0, 'the webhook post', 10_000);
      const post = hook.received[0]!;
      assert.equal(post.method, 'POST');
      assert.ok(post.path.endsWith('/alerts'), post.path);
      assert.equal(post.headers['x-yona-event'], 'alert.raised');
      assert.ok(verify(post.body, String(post.headers['x-yona-timestamp']), String(post.headers['x-yona-signature'])));
      assert.ok(
        !verify(`${post.body} `, String(post.headers['x-yona-timestamp']), String(post.headers['x-yona-signature'])),
      );
      const body = JSON.parse(post.body) as Record<string, unknown>;
      assert.equal(body.event, 'alert.raised');
      assert.equal(body.kind, 'carrier-down');
      assert.equal(body.subject, 'a');
      assert.equal(body.threshold, DOWN_MINUTES);

      const list = JSON.parse(await cli('list', '--json')) as { active: Array<{ kind: string; subject: string }> };
      assert.deepEqual(
        list.active.map((a) => [a.kind, a.subject]),
        [['carrier-down', 'a']],
      );
    });

    it('the simulator back, alert.cleared is logged and posted; nothing raised twice', async () => {
      sim = await startSmscSimProcess(['--port', String(sim.smppPort)]);
      await waitFor(() => lines('alert.cleared').length > 0, 'the alert.cleared line', 20_000);
      const [cleared] = lines('alert.cleared');
      assert.equal(cleared.kind, 'carrier-down');
      assert.equal(cleared.subject, 'a');
      await waitFor(() => hook.received.some((p) => p.headers['x-yona-event'] === 'alert.cleared'), 'the cleared post');
      const post = hook.received.find((p) => p.headers['x-yona-event'] === 'alert.cleared')!;
      assert.ok(verify(post.body, String(post.headers['x-yona-timestamp']), String(post.headers['x-yona-signature'])));
      assert.equal((JSON.parse(post.body) as { event: string }).event, 'alert.cleared');
      assert.equal(ofKind('alert.raised', 'carrier-down').length, 1);
      assert.equal(hook.received.filter((p) => p.headers['x-yona-event'] === 'alert.raised').length, 1);
      const list = JSON.parse(await cli('list', '--json')) as { active: unknown[] };
      assert.deepEqual(list.active, []);
    });

    it('receipts saying not delivered raise delivery-rate under its threshold; delivered ones clear it', async () => {
      await send(['0501230101', '0501240101', '0501230011', '0501230012']);
      await waitFor(() => ofKind('alert.raised', 'delivery-rate').length > 0, 'the delivery-rate alert', 20_000);
      const [raised] = ofKind('alert.raised', 'delivery-rate');
      assert.equal(raised.subject, 'a');
      assert.equal(raised.value, 50);
      assert.equal(raised.threshold, 90);
      await waitFor(
        () => hook.received.some((p) => p.body.includes('"kind":"delivery-rate"')),
        'the delivery-rate post',
      );
      const post = hook.received.find((p) => p.body.includes('"kind":"delivery-rate"'))!;
      assert.ok(verify(post.body, String(post.headers['x-yona-timestamp']), String(post.headers['x-yona-signature'])));
      await send(Array.from({ length: 20 }, (_, i) => `05012350${String(i + 10).padStart(2, '0')}`));
      await waitFor(() => ofKind('alert.cleared', 'delivery-rate').length > 0, 'the delivery-rate clear', 20_000);
      assert.equal(ofKind('alert.raised', 'delivery-rate').length, 1);
    });
  });
}
