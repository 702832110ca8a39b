// kill -9 of `yona serve` in the middle of a campaign, on every store: the service (a child process) submits
// to a standalone simulator configured through YONA_CARRIERS_FILE; after SIGKILL and a restart every message
// is submitted. Messages the dead process had submitted but not yet recorded are sent again: the test counts
// those duplicates and checks they are bounded by the carrier's window (the dispatcher lets no more than the
// window be submitted and unrecorded), and, per destination in the simulator's log, that no message went out
// more than twice (a message in flight at the crash is re-submitted at most once).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runAdminCommand } from '../../src/cli/admin.ts';
import { SmscSimulator } from '../../src/carriers/simulator/index.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore, type Store } from '../../src/store/engine/db.ts';
import { startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';
import { storeTargets } from '../helpers/stores.ts';
import { eventually, mobiles, waitForNoBackends } from '../delivery/delivery-helpers.ts';

const RECIPIENTS = 4000;
const BATCH = 100;
const LANES = 2;
const WINDOW = 20;

const targets = await storeTargets();
for (const target of targets) {
  describe(`kill -9 mid-campaign (${target.name})`, () => {
    it('every message is submitted after a restart; duplicates are counted and bounded by the window', async (t) => {
      const simulator = new SmscSimulator({ systemId: 'yona', password: 'secret', receiptDelayMs: 20 });
      const smppPort = await simulator.start(0);
      const created = await target.create();
      let running: ServeProcess | undefined;
      let store: Store | undefined;
      try {
        const dataDir = created.env.YONA_DATA_DIR;
        const carriersFile = join(dataDir, 'carriers.json');
        // 1500 submits/s keeps the campaign running for about 3 s, so the kill lands in its middle.
        writeFileSync(
          carriersFile,
          JSON.stringify({
            carriers: [
              {
                name: 'sim',
                host: '127.0.0.1',
                port: smppPort,
                systemId: 'yona',
                password: 'secret',
                windowSize: WINDOW,
                maxSubmitsPerSecond: 1500,
              },
            ],
          }),
        );
        const serve = () =>
          startServeProcess(created.env, {
            YONA_CARRIERS_FILE: carriersFile,
            YONA_DISPATCH_BATCH: String(BATCH),
            YONA_DISPATCH_LANES: String(LANES),
            YONA_DISPATCH_LEASE_MS: '2000',
          });
        const config = loadConfig({ ...process.env, DATABASE_URL: '', ...created.env });
        const opened = (store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }));
        const lines: string[] = [];
        const admin = (...args: string[]) => runAdminCommand(opened, config, args, (l) => lines.push(l));
        await admin('create-account', 'killed', '--password', 'secret-pw', '--credits', String(RECIPIENTS));
        await admin('create-token', 'killed');
        const token = lines.at(-1)!;
        await admin('verify-sender', 'killed', 'Yona');

        running = await serve();
        const res = await fetch(`http://127.0.0.1:${running.httpPort}/api`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            sms: {
              user: { username: 'killed' },
              source: 'Yona',
              destinations: { phone: mobiles(RECIPIENTS, 540_000_000) },
              message: 'kill -9 test',
            },
          }),
        });
        const reply = (await res.json()) as { status: number; campaign_id: number };
        assert.equal(reply.status, 0);
        await eventually(
          () => simulator.stats().messagesReceived >= RECIPIENTS / 4,
          20_000,
          'a quarter of the campaign submitted',
        );
        await running.kill();
        const atKill = simulator.stats().messagesReceived;
        assert.ok(atKill < RECIPIENTS, `the kill landed mid-campaign (${atKill} received)`);

        running = await serve();
        const states = async () => {
          const rows = await opened.db
            .selectFrom('messages')
            .select(['state', (eb) => eb.fn.countAll<number>().as('n')])
            .where('campaign_id', '=', reply.campaign_id)
            .groupBy('state')
            .execute();
          return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
        };
        await eventually(
          async () => ((await states()).done === RECIPIENTS ? true : undefined),
          25_000,
          'every message submitted and receipted',
        );
        const received = simulator.messages();
        const copies = new Map<string, number>();
        for (const m of received) copies.set(m.destination, (copies.get(m.destination) ?? 0) + 1);
        const duplicates = received.length - copies.size;
        const twice = [...copies.values()].filter((n) => n === 2).length;
        t.diagnostic(
          `FAULTS kill -9 mid-campaign (${target.name}): ${RECIPIENTS} recipients, received before the kill: ${atKill}; messages received: ${received.length}; lost: ${RECIPIENTS - copies.size}; duplicates: ${duplicates} (${twice} destinations got it twice, window ${WINDOW})`,
        );
        assert.equal(copies.size, RECIPIENTS, 'every recipient got the message');
        assert.ok(duplicates <= WINDOW, `duplicates ${duplicates} exceed the window (${WINDOW})`);
        const overSent = [...copies].filter(([, n]) => n > 2);
        assert.deepEqual(
          overSent.slice(0, 5),
          [],
          `${overSent.length} destinations got the message more than twice (at most one re-submission per message)`,
        );
        const campaign = await opened.db
          .selectFrom('campaigns')
          .select('state')
          .where('id', '=', reply.campaign_id)
          .executeTakeFirstOrThrow();
        assert.equal(campaign.state, 'sent');
        await running.stop();
        running = undefined;
      } finally {
        await running?.kill();
        await store?.close();
        await waitForNoBackends(created.env.DATABASE_URL);
        await simulator.stop();
        await created.cleanup();
      }
    });
  });
}
