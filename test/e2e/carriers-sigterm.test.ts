// Graceful shutdown of a real `yona serve` bound twice to a real `yona smsc-sim` (YONA_CARRIERS_FILE), on every
// store: SIGTERM in the middle of a campaign unbinds each bind (the simulator counts one unbind PDU per bind in
// GET /stats) and exits 0, with the store holding exactly the submits the simulator accepted. After a restart the
// rest of the campaign goes out and every receipt is stored, and no message is sent twice.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runAdminCommand } from '../../src/cli/admin.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore, type Store } from '../../src/store/engine/db.ts';
import { startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';
import { startSmscSimProcess, type SmscSimProcess } from '../helpers/smsc-sim-process.ts';
import { storeTargets } from '../helpers/stores.ts';
import { eventually, mobiles, waitForNoBackends } from '../delivery/delivery-helpers.ts';

const BINDS = 2;
const RECIPIENTS = 400;

let sim: SmscSimProcess;
before(async () => (sim = await startSmscSimProcess(['--receipt-delay', '50'])));
after(() => sim?.stop());

const targets = await storeTargets();
for (const [index, target] of targets.entries()) {
  describe(`SIGTERM of yona serve with ${BINDS} binds (${target.name})`, () => {
    it('unbinds every bind and exits 0 mid-campaign; after a restart every message is delivered exactly once', async () => {
      const created = await target.create();
      let store: Store | undefined;
      let running: ServeProcess | undefined;
      try {
        const carriersFile = join(created.env.YONA_DATA_DIR, 'carriers.json');
        writeFileSync(
          carriersFile,
          JSON.stringify({
            carriers: [
              {
                name: 'sim',
                host: '127.0.0.1',
                port: sim.smppPort,
                systemId: 'yona',
                password: 'secret',
                binds: BINDS,
                windowSize: 20,
                maxSubmitsPerSecond: 300,
              },
            ],
          }),
        );
        const serve = () =>
          startServeProcess(created.env, { YONA_CARRIERS_FILE: carriersFile, YONA_DISPATCH_BATCH: '40' });
        const config = loadConfig({ ...process.env, DATABASE_URL: '', ...created.env });
        const opened = (store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }));
        const lines: string[] = [];
        const admin = (...args: string[]) => runAdminCommand(opened, config, args, (l) => lines.push(l));
        await admin('create-account', 'sigterm', '--password', 'secret-pw', '--credits', String(RECIPIENTS));
        await admin('create-token', 'sigterm');
        const token = lines.at(-1)!;
        await admin('verify-sender', 'sigterm', 'Yona');
        const phones = mobiles(RECIPIENTS, 546_000_000 + index * 10_000);
        const destinations = new Set(phones.map((p) => `972${p.slice(1)}`));
        const received = async () => (await sim.messages()).filter((m) => destinations.has(m.destination));
        const start = await sim.stats();

        running = await serve();
        await eventually(async () => (await sim.stats()).binds - start.binds === BINDS, 10_000, `${BINDS} binds`);
        const res = await fetch(`http://127.0.0.1:${running.httpPort}/api`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            sms: {
              user: { username: 'sigterm' },
              source: 'Yona',
              destinations: { phone: phones },
              message: 'graceful',
            },
          }),
        });
        const reply = (await res.json()) as { status: number; campaign_id: number };
        assert.equal(reply.status, 0);
        await eventually(
          async () => (await received()).length >= RECIPIENTS / 4,
          15_000,
          'a quarter of the campaign submitted',
        );
        assert.equal(await running.stop(), 0, `exit code after SIGTERM\n${running.logs()}`);
        const stopped = await sim.stats();
        assert.equal(stopped.unbinds - start.unbinds, BINDS, 'one unbind per bind');
        const atStop = await received();
        assert.ok(atStop.length < RECIPIENTS, `the SIGTERM landed mid-campaign (${atStop.length} received)`);

        // Everything the simulator accepted was recorded before the process exited: submitted, with its carrier id.
        const recorded = await opened.db
          .selectFrom('messages as m')
          .innerJoin('carrier_message_ids as c', 'c.message_id', 'm.id')
          .select(['m.phone', 'c.carrier_message_id'])
          .where('m.campaign_id', '=', reply.campaign_id)
          .execute();
        assert.deepEqual(
          new Set(recorded.map((r) => `${r.phone}:${r.carrier_message_id}`)),
          new Set(atStop.map((m) => `${m.destination}:${m.messageIds[0]}`)),
          'the store holds exactly what the simulator accepted',
        );

        running = await serve();
        const done = async () => {
          const rows = await opened.db
            .selectFrom('messages')
            .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
            .where('campaign_id', '=', reply.campaign_id)
            .where('state', '=', 'done')
            .groupBy('status')
            .execute();
          return rows.map((r) => [r.status, Number(r.n)]);
        };
        await eventually(
          async () => ((await done()).reduce((a, [, n]) => a + Number(n), 0) === RECIPIENTS ? true : undefined),
          20_000,
          'every message receipted',
        );
        assert.deepEqual(await done(), [[102, RECIPIENTS]]);
        const all = await received();
        assert.equal(new Set(all.map((m) => m.destination)).size, RECIPIENTS, 'every recipient got it');
        assert.equal(all.length, RECIPIENTS, 'and none twice');
        assert.equal(await running.stop(), 0);
        running = undefined;
        assert.equal((await sim.stats()).unbinds - start.unbinds, 2 * BINDS, 'the second stop unbound both binds too');
      } finally {
        await running?.kill();
        await store?.close();
        await waitForNoBackends(created.env.DATABASE_URL);
        await created.cleanup();
      }
    });
  });
}
