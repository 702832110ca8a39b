// Out of the box, with real processes: `yona serve` with no carrier configured starts the bundled simulator,
// delivers a send end to end, and `yona sim messages` / `yona sim mo` find it through simulator.json.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runAdminCommand } from '../../src/cli/admin.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore } from '../../src/store/engine/db.ts';
import { storeTargets } from '../helpers/stores.ts';
import { eventually, waitForNoBackends, windowAroundNow } from '../delivery/delivery-helpers.ts';

const bin = join(import.meta.dirname, '../../bin/yona.js');

const targets = await storeTargets();
for (const target of targets) {
  describe(`yona serve with no carrier (${target.name})`, () => {
    it('binds the bundled simulator; a send is delivered and reported; yona sim reads and answers it', async () => {
      const created = await target.create();
      const base = 20_000 + Math.floor(Math.random() * 20_000);
      const env = {
        ...process.env,
        ...created.env,
        DATABASE_URL: created.env.DATABASE_URL ?? '',
        YONA_CARRIERS_FILE: '',
        YONA_HTTPS_PORT: String(base),
        YONA_HTTP_PORT: String(base + 1),
        YONA_HTTPS_HOST: '127.0.0.1',
      };
      const config = loadConfig(env);
      const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
      let child: ChildProcess | undefined;
      try {
        const lines: string[] = [];
        const admin = (...args: string[]) => runAdminCommand(store, config, args, (l) => lines.push(l));
        await admin('create-account', 'newcomer', '--password', 'secret-pw', '--credits', '10');
        await admin('create-token', 'newcomer');
        const token = lines.at(-1)!;
        await admin('verify-sender', 'newcomer', 'Yona');
        await admin('add-number', 'newcomer', '0559990000');
        child = spawn(process.execPath, [bin, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
        let logs = '';
        child.stdout!.on('data', (d) => (logs += d));
        child.stderr!.on('data', (d) => (logs += d));
        // A minute: a loaded machine running the whole suite can take long to start a process.
        await eventually(() => logs.includes('yona is serving'), 60_000, 'yona serve to start').catch((err: Error) => {
          throw new Error(`${err.message}; its output so far:\n${logs.slice(-2000)}`);
        });
        assert.match(logs, /bundled SMSC simulator started/);
        const info = JSON.parse(readFileSync(join(config.dataDir, 'simulator.json'), 'utf8')) as {
          controlUrl: string;
          smppPort: number;
        };
        assert.match(info.controlUrl, /^http:\/\/127\.0\.0\.1:\d+$/);

        const api = async (root: string, doc: Record<string, unknown>) => {
          const res = await fetch(`http://127.0.0.1:${base + 1}/api`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ [root]: { user: { username: 'newcomer' }, ...doc } }),
          });
          return (await res.json()) as Record<string, any>;
        };
        const sent = await api('sms', {
          source: 'Yona',
          destinations: { phone: [{ $: { id: 'otp-1' }, _: '0501234569' }] },
          message: 'Your code is 4242',
        });
        assert.equal(sent.status, 0);
        const window = windowAroundNow();
        const report = await eventually(
          async () => {
            const r = await api('dlr', { transactions: { external_id: 'otp-1' }, ...window });
            return r.transactions?.[0]?.status === '102' ? r : undefined;
          },
          10_000,
          'the delivery report',
        );
        assert.equal(report.message, '1 delivery report');
        assert.equal(report.transactions[0].operator, 'simulator');

        // `yona admin carriers` asks the running server how its voice trunks answer OPTIONS (the bundled UAS).
        const trunks = await eventually(
          async () => {
            lines.length = 0;
            await admin('carriers');
            return lines.some((l) => /^trunk \S+ on node \S+: up, OPTIONS answered 200 in \d+ ms at /.test(l))
              ? [...lines]
              : undefined;
          },
          10_000,
          'the trunk health from the running server',
        );
        assert.ok(trunks[0].startsWith('no carrier configured'), trunks.join('\n'));

        const sim = (...args: string[]) =>
          spawnSync(process.execPath, [bin, 'sim', ...args], { env, encoding: 'utf8' });
        const listed = sim('messages', '--to', '0501234569', '--json');
        assert.equal(listed.status, 0, listed.stderr);
        assert.deepEqual(
          (JSON.parse(listed.stdout) as Array<{ text: string }>).map((m) => m.text),
          ['Your code is 4242'],
        );
        const mo = sim('mo', '--from', '0501234569', '--to', '0559990000', '--text', 'thanks!');
        assert.equal(mo.status, 0, mo.stderr);
        assert.match(mo.stdout, /delivered to Yona/);
        const incoming = await api('incoming', window);
        assert.deepEqual(
          incoming.transactions.map((m: Record<string, string>) => [m.phone, m.dest, m.message]),
          [['972501234569', '972559990000', 'thanks!']],
        );

        const exited = new Promise((r) => child!.once('exit', r));
        child.kill('SIGTERM');
        await exited;
        child = undefined;
        assert.equal(existsSync(join(config.dataDir, 'simulator.json')), false, 'a clean stop removes simulator.json');
        const none = sim('messages');
        assert.notEqual(none.status, 0);
        assert.match(none.stderr, /no running simulator found/);
      } finally {
        child?.kill('SIGKILL');
        await store.close();
        await waitForNoBackends(created.env.DATABASE_URL);
        await created.cleanup();
      }
    });
  });
}
