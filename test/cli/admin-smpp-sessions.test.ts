// `yona admin smpp-sessions [--json]` against a running `yona serve` with its SMPP listener, on both stores: a
// customer's transmitter bind is listed with its node, address and type; a receipt it asked for waits in the store
// (shown on its bind, then as waiting without a bind once it unbinds) and goes out to its receiver bind, after which
// nothing waits.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../helpers/kannel.ts';
import { runCli, startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';
import { Esme } from '../smpp-server/esme.ts';
import { storeTargets } from '../helpers/stores.ts';
import { waitForNoBackends } from '../delivery/delivery-helpers.ts';

/** A customer's bind of `kind`, as `systemId`, to the SMPP server on `port`; fails unless it is taken. */
async function bindAs(
  port: number,
  systemId: string,
  password: string,
  kind: 'transmitter' | 'receiver' | 'transceiver',
): Promise<Esme> {
  const esme = await Esme.connect(port);
  const status = await esme.bind(kind, systemId, password);
  assert.equal(status, 0, `bind_${kind} of ${systemId}: 0x${status.toString(16)}`);
  return esme;
}

interface Listing {
  sessions: Array<{
    account: string;
    node: string;
    bind_type: string;
    remote_address: string;
    tls: boolean;
    since: number;
    submits_per_second: number;
    receipts_waiting: number;
  }>;
  waiting_without_bind: Array<{ account: string; receipts_waiting: number }>;
}

const targets = await storeTargets();
for (const target of targets) {
  describe(`yona admin smpp-sessions (${target.name})`, () => {
    let created: Awaited<ReturnType<typeof target.create>>;
    let serve: ServeProcess;
    let port: number;
    const admin = async (...args: string[]) => {
      const run = await runCli({ ...process.env, DATABASE_URL: '', ...created.env }, ['admin', ...args]);
      assert.equal(run.status, 0, `yona admin ${args.join(' ')}: ${run.stderr}${run.stdout}`);
      return run.stdout;
    };
    const listing = async () => JSON.parse(await admin('smpp-sessions', '--json')) as Listing;
    const until = async (what: string, check: (l: Listing) => boolean) => {
      const deadline = Date.now() + 20_000;
      let last: Listing | undefined;
      while (Date.now() < deadline) {
        last = await listing();
        if (check(last)) return last;
        await new Promise((r) => setTimeout(r, 200));
      }
      throw new Error(`${what}: ${JSON.stringify(last)}`);
    };

    before(async () => {
      created = await target.create();
      await admin('--new-store', 'create-account', 'acme', '--password', 'secret-pw', '--credits', '10');
      await admin('verify-sender', 'acme', 'Acme');
      await admin('smpp-password', 'acme', 'pw-acme');
      port = await freePort();
      serve = await startServeProcess(created.env, {
        YONA_CARRIERS_FILE: '',
        YONA_SMPP_PORT: String(port),
        YONA_SMPP_HOST: '127.0.0.1',
        YONA_NODE_NAME: 'node-a',
      });
    });
    after(async () => {
      await serve?.stop();
      await waitForNoBackends(created?.env.DATABASE_URL);
      await created?.cleanup();
    });

    it('lists none before any bind', async () => {
      assert.deepEqual(await listing(), { sessions: [], waiting_without_bind: [] });
      assert.match(await admin('smpp-sessions'), /no SMPP bind live on any node/);
    });

    it('shows a bind, the receipt waiting for the account, and that receipt gone once a receiver takes it', async () => {
      const tx = await bindAs(port, 'acme', 'pw-acme', 'transmitter');
      const bound = await until('the transmitter listed', (l) => l.sessions.length === 1);
      assert.deepEqual(
        bound.sessions.map((s) => [s.account, s.node, s.bind_type, s.remote_address, s.tls]),
        [['acme', 'node-a', 'transmitter', '127.0.0.1', false]],
      );
      assert.ok(Math.abs(bound.sessions[0].since - Date.now()) < 60_000);

      const resp = await tx.submit({
        source_addr: 'Acme',
        destination_addr: '0521230019',
        short_message: 'a receipt please',
        registered_delivery: 1,
      });
      assert.equal(resp.command_status, 0);
      await until('the receipt waiting on the bind', (l) => l.sessions[0]?.receipts_waiting === 1);
      assert.match(
        await admin('smpp-sessions'),
        /^acme {2}transmitter {2}on node-a {2}from 127\.0\.0\.1 .* 1 receipts waiting$/m,
      );

      await tx.unbind();
      const alone = await until('waiting without a bind', (l) => l.sessions.length === 0);
      assert.deepEqual(alone.waiting_without_bind, [{ account: 'acme', receipts_waiting: 1 }]);
      assert.match(await admin('smpp-sessions'), /^acme: 1 receipts waiting, no receiver bind$/m);

      const rx = await bindAs(port, 'acme', 'pw-acme', 'receiver');
      try {
        const taken = await until(
          'the receipt sent to the receiver',
          (l) => l.sessions.length === 1 && l.sessions[0].receipts_waiting === 0,
        );
        assert.equal(taken.sessions[0].bind_type, 'receiver');
        assert.deepEqual(taken.waiting_without_bind, []);
        assert.equal(rx.received.length, 1);
        assert.equal(Number(rx.received[0].pdu.esm_class) & 0x04, 0x04, 'a delivery receipt');
      } finally {
        await rx.unbind();
      }
    });

    it('refuses an unknown option with its usage', async () => {
      const run = await runCli({ ...process.env, DATABASE_URL: '', ...created.env }, [
        'admin',
        'smpp-sessions',
        '--all',
      ]);
      assert.equal(run.status, 2);
      assert.match(run.stderr, /unknown option --all; usage: yona admin smpp-sessions \[--json\]/);
    });
  });
}
