// Simulators that fake nothing, with real processes: YONA_SIMULATORS=off starts none and refuses (5) a send no
// carrier can take, charging nothing; a tts send with no voice trunk is refused the same way, until a standalone
// `yona sip-sim` configured as a trunk takes the call (and `route-test --channel voice` names it); a standalone
// `yona smsc-sim` in the server's folder leaves the server's simulator.json alone, so `yona sim` still finds it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runAdminCommand } from '../../src/cli/admin.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore, type Store } from '../../src/store/engine/db.ts';
import { runCli, startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';
import { startSipSimProcess, type SipSimProcess } from '../helpers/sip-sim-process.ts';
import { simCarrierArgs, startSmscSimProcess, type SmscSimProcess } from '../helpers/smsc-sim-process.ts';
import { voiceToolsAvailable } from '../helpers/sipp.ts';
import { storeTargets, type StoreTarget } from '../helpers/stores.ts';
import { eventually, waitForNoBackends, windowAroundNow } from '../delivery/delivery-helpers.ts';

const bin = join(import.meta.dirname, '../../bin/yona.js');
const targets = await storeTargets();

/** A store with an account `username` (10 credits, sender Yona verified) and its token, and an API client. */
async function withAccount(target: StoreTarget, username: string) {
  const created = await target.create();
  const config = loadConfig({ ...process.env, ...created.env });
  const store: Store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const lines: string[] = [];
  const admin = async (...args: string[]) => {
    lines.length = 0;
    await runAdminCommand(store, config, args, (l) => lines.push(l));
    return [...lines];
  };
  await admin('create-account', username, '--password', 'secret-pw', '--credits', '10');
  await admin('verify-sender', username, 'Yona');
  const token = (await admin('create-token', username)).at(-1)!;
  const api = async (serve: ServeProcess, root: string, doc: Record<string, unknown>) => {
    const res = await fetch(`http://127.0.0.1:${serve.httpPort}/api`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ [root]: { user: { username }, ...doc } }),
    });
    return (await res.json()) as Record<string, any>;
  };
  const text = (serve: ServeProcess, id: string, phone: string, extra: Record<string, unknown> = {}) =>
    api(serve, 'sms', {
      source: 'Yona',
      destinations: { phone: [{ $: { id }, _: phone }] },
      message: `message ${id}`,
      ...extra,
    });
  const status = async (serve: ServeProcess, id: string) =>
    (await api(serve, 'dlr', { transactions: { external_id: id }, ...windowAroundNow() })).transactions?.[0]?.status;
  /** The stored message of external id `id`: its state, carrier and error (what a failed test reports). */
  const stored = (id: string) =>
    store.db
      .selectFrom('messages')
      .select(['state', 'status', 'carrier', 'error', 'attempts'])
      .where('external_id', '=', id)
      .executeTakeFirst();
  const close = async () => {
    await store.close();
    await waitForNoBackends(created.env.DATABASE_URL);
    await created.cleanup();
  };
  return { created, config, admin, api, text, status, stored, close };
}

const unroutable = (serve: ServeProcess) =>
  serve
    .logs()
    .split('\n')
    .filter((l) => l.includes('"event":"send.unroutable"'))
    .map((l) => JSON.parse(l) as { channel: string; account: string });

for (const target of targets) {
  describe(`YONA_SIMULATORS=off (${target.name})`, () => {
    it('starts no simulator and refuses a send no carrier can take with 5, charging nothing', async () => {
      const t = await withAccount(target, 'strict');
      let serve: ServeProcess | undefined;
      try {
        serve = await startServeProcess(t.created.env, { YONA_CARRIERS_FILE: '', YONA_SIMULATORS: 'off' });
        assert.doesNotMatch(serve.logs(), /bundled SMSC simulator started|simulator\.serving/);
        assert.equal(existsSync(join(t.config.dataDir, 'simulator.json')), false);
        const health = (await (await fetch(`http://127.0.0.1:${serve.httpPort}/healthz`)).json()) as Record<
          string,
          unknown
        >;
        assert.equal(health.simulators, undefined);

        const refused = await t.text(serve, 'nowhere', '0501234567');
        assert.equal(refused.status, 5, JSON.stringify(refused));
        assert.match(refused.message, /no SMS carrier can take texts.*YONA_SIMULATORS=off/);
        assert.equal(Number((await t.api(serve, 'balance', {})).balance), 10, 'nothing charged');
        await eventually(() => unroutable(serve!).some((e) => e.channel === 'sms' && e.account === 'strict'));
        const test = await serve.cli('admin', 'route-test', '--to', '0501234567');
        assert.match(test.stdout, /YONA_SIMULATORS=off: such a send is refused at accept \(5\)/);
      } finally {
        await serve?.stop();
        await t.close();
      }
    });
  });

  describe(`voice sends and a standalone yona sip-sim trunk (${target.name})`, { skip: !voiceToolsAvailable() }, () => {
    it('refuses a tts send no trunk can route (5), then calls through yona sip-sim once it is a trunk', async () => {
      const t = await withAccount(target, 'caller');
      const simDir = mkdtempSync(join(tmpdir(), 'yona-sip-sim-'));
      let serve: ServeProcess | undefined;
      let smsc: SmscSimProcess | undefined;
      let sip: SipSimProcess | undefined;
      try {
        smsc = await startSmscSimProcess(['--receipt-delay', '20']);
        sip = await startSipSimProcess({ ...process.env, YONA_DATA_DIR: simDir });
        await t.admin(...simCarrierArgs('texts', smsc));
        serve = await startServeProcess(t.created.env, { YONA_CARRIERS_FILE: '' });
        assert.doesNotMatch(serve.logs(), /simulator\.serving/, 'a configured carrier: no bundled simulator');

        const call = { tts: { type: 4, repeat: 1 } };
        const refused = await t.text(serve, 'no-trunk', '0521340001', call);
        assert.equal(refused.status, 5, JSON.stringify(refused));
        assert.match(refused.message, /no voice trunk can take calls/);
        assert.equal(Number((await t.api(serve, 'balance', {})).balance), 10, 'nothing charged');
        await eventually(() => unroutable(serve!).some((e) => e.channel === 'voice' && e.account === 'caller'));
        const before = await serve.cli('admin', 'route-test', '--channel', 'voice', '--to', '0521340001');
        assert.match(before.stdout, /no voice trunk configured: such a send is refused at accept \(5\)/);

        const settings = { host: '127.0.0.1', port: sip.sipPort, callerId: '035550000' };
        const added = await serve.cli(
          'admin',
          'add-carrier',
          'trunk1',
          '--protocol',
          'sip',
          '--settings',
          JSON.stringify(settings),
        );
        assert.equal(added.status, 0, added.stderr);
        const voice = await serve.cli('admin', 'route-test', '--channel', 'voice', '--to', '0521340001');
        assert.match(voice.stdout, /trunks, in the order tried: trunk1$/m);
        const texts = await serve.cli('admin', 'route-test', '--to', '0521340001');
        assert.match(texts.stdout, /carriers, in the order tried: texts$/m);

        // Within the nodes' reload period the send is accepted, and the call reaches yona sip-sim.
        const accepted = await eventually(
          async () => {
            const r = await t.text(serve!, 'called', '0521340001', call);
            return r.status === 0 ? r : undefined;
          },
          5000,
          'the tts send accepted',
        );
        assert.equal(accepted.calls, 1);
        // The trunk goes live on the voice lane at the next reload, and the call is spoken in real time: under a
        // loaded CI machine that took over 20 s.
        let lastStatus: string | undefined;
        try {
          await eventually(
            async () => {
              lastStatus = await t.status(serve!, 'called');
              return lastStatus === '102' || undefined;
            },
            60_000,
            '102',
          );
        } catch (e) {
          const calls = JSON.stringify(await sip.calls('972521340001'));
          const message = JSON.stringify(await t.stored('called'));
          const log = serve
            .logs()
            .split('\n')
            .filter((l) => /voice|sip|call|trunk|"level":[56]0/i.test(l))
            .slice(-30)
            .join('\n');
          throw new Error(
            `${(e as Error).message}; last status ${lastStatus}; message ${message}; sip-sim calls ${calls}\n${log}`,
          );
        }
        const [received] = await sip.calls('972521340001');
        assert.equal(received?.behaviour, 'answer');
        assert.ok(received.packets > 0, `${received.packets} RTP packets`);
        // `yona sim calls` in its folder finds it through its own registration.
        const listed = await runCli({ ...process.env, YONA_DATA_DIR: simDir }, ['sim', 'calls', '--json']);
        assert.equal(listed.status, 0, listed.stderr);
        assert.deepEqual(
          (JSON.parse(listed.stdout) as Array<{ to: string }>).map((c) => c.to.replace(/\D/g, '').slice(-9)),
          ['521340001'],
        );
      } finally {
        await serve?.stop();
        await sip?.stop();
        await smsc?.stop();
        rmSync(simDir, { recursive: true, force: true });
        await t.close();
      }
    });
  });
}

describe('a standalone yona smsc-sim in the server folder', () => {
  it("keeps its own registration: the server's simulator.json stays, and yona sim still finds the server's", async () => {
    const t = await withAccount(targets[0], 'neighbour');
    let serve: ServeProcess | undefined;
    const standalone = spawn(process.execPath, [bin, 'smsc-sim', '--port', '0', '--control-port', '0'], {
      env: { ...process.env, ...t.created.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise((r) => standalone.once('exit', r));
    try {
      serve = await startServeProcess(t.created.env, { YONA_CARRIERS_FILE: '' });
      assert.equal((await t.text(serve, 'mine', '0501237777')).status, 0);
      await eventually(async () => (await t.status(serve!, 'mine')) === '102' || undefined, 10_000, '102');
      const infoFile = join(t.config.dataDir, 'simulator.json');
      const server = readFileSync(infoFile, 'utf8');

      let output = '';
      standalone.stdout!.on('data', (d) => (output += d));
      await eventually(() => output.includes('smsc simulator: SMPP on'), 20_000, 'yona smsc-sim to listen');
      const registrations = join(t.config.dataDir, 'simulators');
      assert.deepEqual(readdirSync(registrations), [`smsc-sim-${standalone.pid}.json`]);
      const listed = async () => {
        const run = await serve!.cli('sim', 'messages', '--json');
        assert.equal(run.status, 0, run.stderr);
        return (JSON.parse(run.stdout) as Array<{ text: string }>).map((m) => m.text);
      };
      assert.equal(readFileSync(infoFile, 'utf8'), server, "the server's registration is untouched");
      assert.deepEqual(await listed(), ['message mine']);

      standalone.kill('SIGTERM');
      await exited;
      assert.equal(readFileSync(infoFile, 'utf8'), server, 'still there after the standalone one stopped');
      assert.deepEqual(readdirSync(registrations), [], 'the standalone one removed only its own');
      assert.deepEqual(await listed(), ['message mine']);
    } finally {
      standalone.kill('SIGKILL');
      await serve?.stop();
      await t.close();
    }
  });
});
