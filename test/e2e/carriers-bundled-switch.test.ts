// A `yona serve` started with no carrier runs the bundled simulator; a carrier added with `yona admin add-carrier`
// (a standalone `yona smsc-sim`) and a route are taken live by the running node within 5 s, without a restart: the
// bundled simulator stops (logged, and gone from /healthz), and the next send reaches the standalone simulator.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runAdminCommand } from '../../src/cli/admin.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore } from '../../src/store/engine/db.ts';
import { startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';
import { simCarrierArgs, startSmscSimProcess, type SmscSimProcess } from '../helpers/smsc-sim-process.ts';
import { storeTargets } from '../helpers/stores.ts';
import { eventually, waitForNoBackends, windowAroundNow } from '../delivery/delivery-helpers.ts';

const TAKE_LIVE_WITHIN_MS = 5000;

for (const target of await storeTargets()) {
  describe(`a carrier added to a server running the bundled simulator (${target.name})`, () => {
    it('is taken live within 5 s: the next send reaches it, not the bundled simulator; logged; no restart', async () => {
      const created = await target.create();
      const config = loadConfig({ ...process.env, ...created.env });
      const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
      let serve: ServeProcess | undefined;
      let sim: SmscSimProcess | undefined;
      try {
        const lines: string[] = [];
        const admin = (...args: string[]) => runAdminCommand(store, config, args, (l) => lines.push(l));
        await admin('create-account', 'switcher', '--password', 'secret-pw', '--credits', '10');
        await admin('verify-sender', 'switcher', 'Yona');
        await admin('create-token', 'switcher');
        const token = lines.at(-1)!;
        serve = await startServeProcess(created.env, { YONA_CARRIERS_FILE: '' });
        const http = `http://127.0.0.1:${serve.httpPort}`;
        const send = async (id: string, phone: string) => {
          const res = await fetch(`${http}/api`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              sms: {
                user: { username: 'switcher' },
                source: 'Yona',
                destinations: { phone: [{ $: { id }, _: phone }] },
                message: `text ${id}`,
              },
            }),
          });
          return (await res.json()) as { status: number };
        };
        const report = async (id: string) => {
          const res = await fetch(`${http}/api`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              dlr: { user: { username: 'switcher' }, transactions: { external_id: id }, ...windowAroundNow() },
            }),
          });
          return ((await res.json()) as { transactions?: Array<{ status: string; operator: string }> })
            .transactions?.[0];
        };

        // The bundled simulator serves, and says so: in the log and on /healthz.
        assert.match(serve.logs(), /"event":"simulator\.serving"/);
        const health = (await (await fetch(`${http}/healthz`)).json()) as { simulators?: string[] };
        assert.deepEqual(health.simulators, ['sms', 'voice', 'whatsapp']);
        const bundled = JSON.parse(readFileSync(join(config.dataDir, 'simulator.json'), 'utf8')) as {
          controlUrl: string;
        };
        assert.equal((await send('before', '0501231111')).status, 0);
        const first = await eventually(async () =>
          (await report('before'))?.status === '102' ? report('before') : undefined,
        );
        assert.equal(first?.operator, 'simulator');

        // A standalone simulator becomes a carrier, with a route, while the server runs.
        sim = await startSmscSimProcess(['--receipt-delay', '20']);
        const added = await serve.cli('admin', ...simCarrierArgs('partner', sim));
        assert.equal(added.status, 0, added.stderr);
        const configuredAt = Date.now();
        const routed = await serve.cli('admin', 'add-route', 'default', 'partner');
        assert.equal(routed.status, 0, routed.stderr);
        // Timed by the node's own log line: when it had the new carrier live and the simulators stopped.
        const stopped = await eventually(
          () =>
            serve!
              .logs()
              .split('\n')
              .find((l) => l.includes('"event":"simulator.stopped"')),
          TAKE_LIVE_WITHIN_MS * 2,
          'the node to take the new carrier live',
        );
        const event = JSON.parse(stopped) as { time: string; carriers: string[] };
        assert.deepEqual(event.carriers, ['partner']);
        const tookMs = Date.parse(event.time) - configuredAt;
        assert.ok(tookMs <= TAKE_LIVE_WITHIN_MS, `taken live ${tookMs} ms after yona admin add-carrier returned`);

        // The next send goes to the standalone simulator; the bundled one is gone.
        assert.equal((await send('after', '0501232222')).status, 0);
        const next = await eventually(async () =>
          (await report('after'))?.status === '102' ? report('after') : undefined,
        );
        assert.equal(next?.operator, 'partner');
        assert.deepEqual(
          (await sim.messages('972501232222')).map((m) => m.text),
          ['text after'],
        );
        await assert.rejects(fetch(`${bundled.controlUrl}/messages`), 'the bundled simulator stopped');
        assert.equal(existsSync(join(config.dataDir, 'simulator.json')), false);
        const healthAfter = (await (await fetch(`${http}/healthz`)).json()) as { simulators?: string[] };
        assert.equal(healthAfter.simulators, undefined);
        // `yona admin carriers --status` sees the node run the new carrier.
        await eventually(
          async () => {
            const status = await serve!.cli('admin', 'carriers', '--status');
            return /^partner\s+\S+\s+\d+\/\d+/m.test(status.stdout) &&
              !status.stdout.includes('not run by any live node')
              ? true
              : undefined;
          },
          15_000,
          'carriers --status to show partner run by the node',
        );
      } finally {
        await serve?.stop();
        await sim?.stop();
        await store.close();
        await waitForNoBackends(created.env.DATABASE_URL);
        await created.cleanup();
      }
    });
  });
}
