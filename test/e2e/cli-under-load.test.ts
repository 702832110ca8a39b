// The operator CLI beside a busy server, as real processes on one store: `yona admin create-token` runs
// while `yona serve` answers a steady stream of writes (addNumBL); every run succeeds and its token works,
// and no request of the load fails (on SQLite a transaction that read and then wrote while another process
// committed used to be refused: "database is locked" in the CLI, 998 in the server).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Agent, request } from 'undici';
import { runAdminCommand } from '../../src/cli/admin.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore } from '../../src/store/engine/db.ts';
import { lastLine, startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';
import { storeTargets } from '../helpers/stores.ts';

const LOAD_CONNECTIONS = 8;
/** Each loop sends at most one request per this many ms: about 800 writes/s in all, leaving CPU for the CLI. */
const LOOP_PACE_MS = 10;

for (const target of await storeTargets()) {
  describe(`yona admin create-token under write load (${target.name}, real processes)`, () => {
    let store: Awaited<ReturnType<typeof target.create>>;
    let serve: ServeProcess;
    let loaderToken: string;
    before(async () => {
      store = await target.create();
      // Accounts made in-process before the server starts (a CLI process costs seconds on a busy machine).
      const config = loadConfig({ ...process.env, DATABASE_URL: '', ...store.env });
      const setup = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
      const lines: string[] = [];
      for (const name of ['loader', 'bob', 'carol']) {
        await runAdminCommand(setup, config, ['create-account', name, '--password', 'correct-horse'], (l) =>
          lines.push(l),
        );
      }
      await runAdminCommand(setup, config, ['create-token', 'loader'], (l) => lines.push(l));
      loaderToken = lines.at(-1)!;
      await setup.close();
      serve = await startServeProcess(store.env);
    });
    after(async () => {
      await serve?.stop();
      await store?.cleanup();
    });

    it('every create-token succeeds while the server commits writes, and every token works', async () => {
      const api = `http://127.0.0.1:${serve.httpPort}/api`;
      const agent = new Agent({ connections: LOAD_CONNECTIONS });
      const post = async (token: string, doc: object) => {
        const res = await request(api, {
          method: 'POST',
          dispatcher: agent,
          body: JSON.stringify(doc),
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        });
        return (await res.body.json()) as { status: number; message: string };
      };

      // A bounded load: LOAD_CONNECTIONS paced loops, each one request at a time, each request a new number.
      let running = true;
      let next = 0;
      const statuses = new Map<number, number>();
      const failures: string[] = [];
      const loop = async () => {
        while (running) {
          const paced = new Promise((r) => setTimeout(r, LOOP_PACE_MS));
          const phone = `05${String(10_000_000 + next++).padStart(8, '0')}`;
          const reply = await post(loaderToken, { addNumBL: { user: { username: 'loader' }, phones: { phone } } });
          statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
          if (reply.status !== 946 && failures.length < 5) failures.push(JSON.stringify(reply));
          await paced;
        }
      };
      const loops = Array.from({ length: LOAD_CONNECTIONS }, loop);
      try {
        while (next < 200) await new Promise((r) => setTimeout(r, 20));
        // Six runs, two at a time (one per account), each while the load runs.
        const minted: Array<{ user: string; token: string }> = [];
        for (let round = 1; round <= 3; round++) {
          const before = next;
          const runs = await Promise.all(['bob', 'carol'].map((user) => serve.cli('admin', 'create-token', user)));
          runs.forEach((run, i) => {
            assert.equal(run.status, 0, `round ${round}: ${run.stderr}`);
            // Only the line naming the store used: no busy warning, no retry notice.
            assert.match(run.stderr, /^yona: store [^\n]+ \((YONA_DATA_DIR|DATABASE_URL)\)\n$/);
            minted.push({ user: i ? 'carol' : 'bob', token: lastLine(run) });
          });
          assert.ok(next - before > 10, `the load kept running during round ${round} (${next - before} requests)`);
        }
        running = false;
        await Promise.all(loops);
        assert.deepEqual(
          [...statuses.keys()],
          [946],
          `load replies by status: ${JSON.stringify([...statuses])}; ${failures.join(' ')}`,
        );
        for (const { user, token } of minted) {
          const balance = await post(token, { balance: { user: { username: user } } });
          assert.equal(balance.status, 0, JSON.stringify(balance));
        }
      } finally {
        running = false;
        await Promise.allSettled(loops);
        await agent.close();
      }
    });
  });
}
