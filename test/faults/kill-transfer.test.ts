// kill -9 of `yona serve` in the middle of credit transfers, on every store: a reseller and its sub-account move
// credits both ways over 16 concurrent connections (each transfer with an Idempotency-Key); the process is killed
// mid-stream and started again. Every credit is conserved (the two balances sum to what they held), each balance
// equals its ledger sum, and retrying every transfer with its key after the restart moves nothing that had
// committed twice: the balances after the retries equal the ledger, and each key committed at most once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Agent, request } from 'undici';
import { runAdminCommand } from '../../src/cli/admin.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore, type Store } from '../../src/store/engine/db.ts';
import { startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';
import { storeTargets } from '../helpers/stores.ts';
import { waitForNoBackends } from '../delivery/delivery-helpers.ts';

const CONNECTIONS = 16;
const START_CREDITS = 100_000;

async function balances(store: Store): Promise<Record<string, { credits: number; ledger: number }>> {
  const out: Record<string, { credits: number; ledger: number }> = {};
  for (const username of ['bank', 'branch']) {
    const account = await store.db
      .selectFrom('accounts')
      .select(['id', 'credits'])
      .where('username', '=', username)
      .executeTakeFirstOrThrow();
    const ledger = await store.db
      .selectFrom('ledger_entries')
      .select((eb) => eb.fn.sum<number>('amount').as('n'))
      .where('account_id', '=', account.id)
      .where('currency', '=', 'credits')
      .executeTakeFirstOrThrow();
    out[username] = { credits: Number(account.credits), ledger: Number(ledger.n ?? 0) };
  }
  return out;
}

for (const target of await storeTargets()) {
  describe(`kill -9 mid-transfer (${target.name}, real processes)`, () => {
    it('conserves every credit, keeps balances equal to the ledger, and a retried key moves nothing twice', async () => {
      const created = await target.create();
      const config = loadConfig({ ...process.env, DATABASE_URL: '', ...created.env });
      let store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
      const lines: string[] = [];
      const admin = (...args: string[]) => runAdminCommand(store, config, args, (l) => lines.push(l));
      await admin(
        'create-account',
        'bank',
        '--password',
        'secret-pw',
        '--reseller',
        '--credits',
        String(START_CREDITS),
      );
      await admin('create-account', 'branch', '--password', 'secret-pw', '--parent', 'bank');
      await admin('create-token', 'bank');
      const token = lines.at(-1)!;
      await store.close();
      let serve: ServeProcess | undefined = await startServeProcess(created.env);
      const agent = new Agent({ connections: CONNECTIONS });
      const transfer = async (port: number, i: number) => {
        const res = await request(`http://127.0.0.1:${port}/api`, {
          method: 'POST',
          dispatcher: agent,
          body: JSON.stringify({
            updateAmountSub: {
              user: { username: 'bank' },
              userDetails: { username: 'branch' },
              amount: i % 3 === 2 ? '-1' : '2',
            },
          }),
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'idempotency-key': `t-${i}`,
          },
        });
        return (await res.body.json()) as { status: number };
      };
      try {
        let next = 0;
        let ok = 0;
        let cut = 0;
        const port = serve.httpPort;
        const loop = async () => {
          for (;;) {
            const i = next++;
            try {
              if ((await transfer(port, i)).status === 0) ok++;
            } catch {
              cut++;
              return;
            }
          }
        };
        const loops = Array.from({ length: CONNECTIONS }, loop);
        while (ok < 300) await new Promise((r) => setTimeout(r, 10));
        await serve.kill();
        await Promise.all(loops);
        const sent = next;
        serve = await startServeProcess(created.env);
        const retried = await Promise.all(Array.from({ length: sent }, (_, i) => transfer(serve!.httpPort, i)));
        await serve.stop();
        serve = undefined;
        store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
        const after = await balances(store);
        const keys = await store.db.selectFrom('idempotency_keys').select(['idem_key', 'reply']).execute();
        const transfers = (
          await store.db.selectFrom('ledger_entries').select('id').where('reason', 'like', 'transfer:%').execute()
        ).length;
        await store.close();
        console.log(
          `FAULTS kill -9 mid-transfer (${target.name}): ${ok} transfers answered before the kill, ${cut} cut off, ` +
            `${sent} retried with their keys; bank ${after.bank.credits} + branch ${after.branch.credits} = ` +
            `${after.bank.credits + after.branch.credits} of ${START_CREDITS}`,
        );
        assert.equal(after.bank.credits + after.branch.credits, START_CREDITS, 'no credit created or lost');
        assert.equal(after.bank.credits, after.bank.ledger, 'bank balance equals its ledger');
        assert.equal(after.branch.credits, after.branch.ledger, 'branch balance equals its ledger');
        assert.ok(
          retried.every((r) => r.status === 0 || r.status === 990),
          JSON.stringify(retried.find((r) => r.status !== 0)),
        );
        assert.equal(keys.length, sent, 'one key row per transfer, each with its reply');
        const moved = keys.filter((k) => k.reply !== null && JSON.parse(k.reply).status === 0).length;
        assert.equal(transfers, 2 * moved, 'each transfer answered 0 moved credits exactly once (two ledger rows)');
      } finally {
        await serve?.kill();
        await agent.close();
        await waitForNoBackends(created.env.DATABASE_URL);
        await created.cleanup();
      }
    });
  });
}
