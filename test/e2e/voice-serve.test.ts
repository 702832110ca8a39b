// Voice out of the box, with real processes (embedded store): `yona serve` with no carrier configured starts the
// bundled simulator's SIP side too; a tts type 4 send over HTTP is called, `yona sim calls` shows the call and
// the RTP it received, and dlr reports 102. A call in progress when `yona serve` is killed (SIGKILL) is not lost:
// after a restart it is reported with status 2 once the call window passes.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runAdminCommand } from '../../src/cli/admin.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore } from '../../src/store/engine/db.ts';
import { voiceToolsAvailable } from '../helpers/sipp.ts';
import { storeTargets } from '../helpers/stores.ts';
import { eventually, windowAroundNow } from '../delivery/delivery-helpers.ts';

const bin = join(import.meta.dirname, '../../bin/yona.js');
const available = voiceToolsAvailable();

describe('voice with yona serve and the bundled simulator', { skip: !available }, () => {
  it('calls, shows the call in yona sim calls, and reports a call cut by SIGKILL after a restart', async () => {
    const [sqlite] = await storeTargets();
    const created = await sqlite.create();
    const base = 20_000 + Math.floor(Math.random() * 20_000);
    const env = {
      ...process.env,
      ...created.env,
      DATABASE_URL: '',
      YONA_CARRIERS_FILE: '',
      YONA_HTTPS_PORT: String(base),
      YONA_HTTP_PORT: String(base + 1),
      YONA_HTTPS_HOST: '127.0.0.1',
      YONA_CALL_WINDOW_MS: '1500',
      YONA_RECEIPT_WINDOW_MS: '2000',
    };
    const config = loadConfig(env);
    const lines: string[] = [];
    const store = await openStore({ databaseUrl: undefined, dataDir: config.dataDir });
    const admin = (...args: string[]) => runAdminCommand(store, config, args, (l) => lines.push(l));
    await admin('create-account', 'speaker', '--password', 'secret-pw', '--credits', '100');
    await admin('create-token', 'speaker');
    const token = lines.at(-1)!;
    await admin('verify-sender', 'speaker', 'Yona');
    await store.close();
    const serve = async (): Promise<ChildProcess> => {
      const child = spawn(process.execPath, [bin, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let logs = '';
      child.stdout!.on('data', (d) => (logs += d));
      child.stderr!.on('data', (d) => (logs += d));
      await eventually(() => logs.includes('yona is serving'), 20_000, 'yona serve to start');
      assert.match(logs, /bundled call simulator started/);
      return child;
    };
    const api = async (root: string, doc: Record<string, unknown>) => {
      const res = await fetch(`http://127.0.0.1:${base + 1}/api`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ [root]: { user: { username: 'speaker' }, ...doc } }),
      });
      return (await res.json()) as Record<string, any>;
    };
    const status = async (id: string) => {
      const r = await api('dlr', { transactions: { external_id: id }, ...windowAroundNow() });
      return r.transactions?.[0]?.status as string | undefined;
    };
    let child: ChildProcess | undefined = await serve();
    try {
      const sent = await api('sms', {
        source: 'Yona',
        destinations: { phone: [{ $: { id: 'call-1' }, _: '0521340001' }] },
        message: 'short call',
        tts: { type: 4, repeat: 1 },
      });
      assert.equal(sent.status, 0, sent.message);
      await eventually(async () => (await status('call-1')) === '102' || undefined, 15_000, 'the answered call');
      const listed = spawnSync(process.execPath, [bin, 'sim', 'calls', '--to', '0521340001', '--json'], {
        env,
        encoding: 'utf8',
      });
      assert.equal(listed.status, 0, listed.stderr);
      const [call] = JSON.parse(listed.stdout) as Array<{
        behaviour: string;
        packets: number;
        law: string;
        endedAt?: number;
      }>;
      assert.deepEqual([call.behaviour, call.law, call.endedAt !== undefined], ['answer', 'pcma', true]);
      assert.ok(call.packets > 20, `${call.packets} RTP packets`);
      const text = spawnSync(process.execPath, [bin, 'sim', 'calls'], { env, encoding: 'utf8' });
      assert.match(text.stdout, /to 972521340001 .* answer {2}pcma {2}\d+ RTP packets, [\d.]+ s of audio/);

      const long = await api('sms', {
        source: 'Yona',
        destinations: { phone: [{ $: { id: 'call-2' }, _: '0521340002' }] },
        message: 'a much longer message that keeps the line busy for a while',
        tts: { type: 4, repeat: 10 },
      });
      assert.equal(long.status, 0);
      await eventually(async () => (await status('call-2')) === '-1' || undefined, 15_000, 'the long call under way');
      child.kill('SIGKILL');
      await new Promise((r) => child!.once('exit', r));
      child = await serve();
      await eventually(async () => (await status('call-2')) === '2' || undefined, 15_000, 'the cut call reported');
    } finally {
      child?.kill('SIGKILL');
      await created.cleanup();
    }
  });
});
