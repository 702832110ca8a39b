// The SMPP server for customers over two nodes on one PostgreSQL database (two `yona serve` processes with
// YONA_SMPP_PORT, `yona smsc-sim` as the carrier): a customer submits through a transmitter bind on one node and
// its receipts come back through its receiver bind on the other; the bind limit counts binds on both nodes; and a
// kill -9 of the node holding the receiver bind, with receipts in flight on it and more waiting, loses none: each
// goes out when the customer binds again on the other node, a second time only if it was in flight at the kill.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { eventually, waitForNoBackends } from '../delivery/delivery-helpers.ts';
import { runCli, startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';
import { simCarrierArgs, startSmscSimProcess, type SmscSimProcess } from '../helpers/smsc-sim-process.ts';
import { storeTargets } from '../helpers/stores.ts';
import { Esme, type Received } from '../smpp-server/esme.ts';

const postgres = (await storeTargets()).find((t) => t.name === 'postgres');
const KEY = randomBytes(32).toString('base64');
const LEASE_MS = 2000;
const MESSAGES = 50;
const WINDOW = 20;
const ESME_RBINDFAIL = 0x0d;

interface Node {
  serve: ServeProcess;
  smppPort: number;
}

describe('the SMPP server over two nodes (postgres)', { skip: !postgres && 'no PostgreSQL' }, () => {
  let created: Awaited<ReturnType<NonNullable<typeof postgres>['create']>>;
  let sim: SmscSimProcess;
  let a: Node;
  let b: Node;
  let db: pg.Client;
  const open: Esme[] = [];

  const admin = async (...args: string[]) => {
    const run = await runCli({ ...process.env, DATABASE_URL: '', ...created.env, YONA_SECRET_KEY: KEY }, [
      'admin',
      ...args,
    ]);
    assert.equal(run.status, 0, `yona admin ${args.join(' ')}: ${run.stderr}`);
    return run;
  };
  const startNode = async (name: string): Promise<Node> => {
    const serve = await startServeProcess(created.env, {
      YONA_NODE_NAME: name,
      YONA_SECRET_KEY: KEY,
      YONA_DATA_DIR: mkdtempSync(join(tmpdir(), `yona-${name}-`)),
      YONA_SMPP_PORT: '0',
      YONA_SMPP_HOST: '127.0.0.1',
      YONA_NODE_LEASE_MS: String(LEASE_MS),
    });
    const line = serve
      .logs()
      .split('\n')
      .find((l) => l.includes('"smpp.listening"'));
    assert.ok(line, `no SMPP listener on ${name}:\n${serve.logs()}`);
    return { serve, smppPort: JSON.parse(line).port };
  };
  const customer = async (username: string) => {
    await admin('create-account', username, '--password', 'secret-pw', '--credits', '10000');
    await admin('verify-sender', username, 'Yona');
    await admin('smpp-password', username, 'pw');
  };
  const bound = async (node: Node, kind: 'transmitter' | 'receiver', username: string) => {
    const esme = await Esme.connect(node.smppPort);
    open.push(esme);
    assert.equal(await esme.bind(kind, username, 'pw'), 0, `${kind} bind of ${username}`);
    return esme;
  };
  const submitAll = async (tx: Esme, prefix: string): Promise<string[]> => {
    const ids: string[] = [];
    for (let i = 0; i < MESSAGES; i += 10) {
      const replies = await Promise.all(
        Array.from({ length: 10 }, (_, j) =>
          tx.submit({
            destination_addr: `0525${prefix}${String(i + j).padStart(4, '0')}9`,
            short_message: Buffer.from(`two nodes ${i + j}`),
          }),
        ),
      );
      for (const r of replies) assert.equal(r.command_status, 0, 'submit_sm accepted');
      ids.push(...replies.map((r) => String(r.message_id)));
    }
    return ids;
  };
  const receiptIds = (esme: Esme) => esme.receipts().map((r: Received) => String(r.pdu.receipted_message_id));
  const outboxRows = async () => Number((await db.query('select count(*) as n from smpp_outbox')).rows[0].n);

  before(async () => {
    created = await postgres!.create();
    sim = await startSmscSimProcess(['--receipt-delay', '20']);
    await Promise.all([
      customer('reseller').then(() => admin('smpp-limits', 'reseller', '--window', String(WINDOW))),
      customer('limited').then(() => admin('smpp-limits', 'limited', '--binds', '3')),
      admin(...simCarrierArgs('sim', sim)).then(() => admin('add-route', 'default', 'sim')),
    ]);
    [a, b] = await Promise.all([startNode('node-a'), startNode('node-b')]);
    db = new pg.Client({ connectionString: created.env.DATABASE_URL });
    await db.connect();
  });
  after(async () => {
    for (const e of open) e.close();
    await db?.end();
    await Promise.all([a?.serve.stop(), b?.serve.stop()]);
    await sim?.stop();
    await waitForNoBackends(created?.env.DATABASE_URL);
    await created?.cleanup();
  });

  it('receipts of messages submitted on one node come back through the receiver bind on the other, each once', async () => {
    const rx = await bound(b, 'receiver', 'reseller');
    const tx = await bound(a, 'transmitter', 'reseller');
    const ids = await submitAll(tx, '1');
    await rx.until(() => new Set(receiptIds(rx)).size >= MESSAGES, 30_000, `${MESSAGES} receipts on node B`);
    await eventually(async () => ((await outboxRows()) === 0 ? true : undefined), 10_000, 'an empty outbox');
    assert.deepEqual(receiptIds(rx).sort(), [...ids].sort(), 'each receipt once, on node B');
    assert.ok(receiptIds(rx).every((id) => rx.receipts().some((r) => r.text.startsWith(`id:${id} `))));
    assert.equal(tx.received.length, 0, 'a transmitter gets no deliver_sm');
    await rx.unbind();
    await tx.unbind();
  });

  it('the bind limit counts the binds on both nodes', async () => {
    await bound(a, 'transmitter', 'limited');
    await bound(b, 'receiver', 'limited');
    const third = await bound(a, 'receiver', 'limited');
    for (const node of [a, b]) {
      const over = await Esme.connect(node.smppPort);
      open.push(over);
      assert.equal(await over.bind('transmitter', 'limited', 'pw'), ESME_RBINDFAIL, 'a fourth bind refused');
      over.close();
    }
    await third.unbind();
    await eventually(
      async () => {
        const again = await Esme.connect(b.smppPort);
        open.push(again);
        const status = await again.bind('transmitter', 'limited', 'pw');
        if (status !== 0) again.close();
        return status === 0 ? true : undefined;
      },
      5000,
      'a bind on node B once one on node A unbound',
    );
  });

  it('kill -9 of the node with the receiver bind loses no receipt: all go out on a bind to the other node', async () => {
    const held = await bound(b, 'receiver', 'reseller');
    held.answerWith = null; // receipts sent to it stay in flight, unanswered
    const tx = await bound(a, 'transmitter', 'reseller');
    const ids = await submitAll(tx, '2');
    // A window's worth of receipts in flight on node B's bind, unanswered, and the rest waiting in the store behind
    // them. (Another account's receiver is bound on node B as well, with a larger window: the window is per bind.)
    await held.until(() => held.receipts().length >= WINDOW, 30_000, 'a window of receipts in flight');
    await eventually(
      async () => ((await outboxRows()) >= MESSAGES - WINDOW ? true : undefined),
      30_000,
      'the other receipts waiting',
    );
    await new Promise((r) => setTimeout(r, 1000));
    const inFlight = new Set(receiptIds(held));
    assert.equal(inFlight.size, WINDOW, 'node B sends no more than the window');

    await b.serve.kill();
    await held.until(() => held.closed, 5000, 'the bind to node B closed by the kill');
    const started = Date.now();
    const rx = await bound(a, 'receiver', 'reseller');
    await rx.until(() => new Set(receiptIds(rx)).size >= MESSAGES, 60_000, `${MESSAGES} receipts on node A`);
    await eventually(async () => ((await outboxRows()) === 0 ? true : undefined), 10_000, 'an empty outbox');
    const seconds = (Date.now() - started) / 1000;

    const got = receiptIds(rx);
    assert.deepEqual([...new Set(got)].sort(), [...ids].sort(), 'every receipt, none lost');
    assert.equal(got.length, MESSAGES, 'each once on the new bind');
    const twice = got.filter((id) => inFlight.has(id));
    assert.equal(twice.length, WINDOW, 'those in flight at the kill go out again');
    const delivered = [...inFlight, ...got];
    assert.equal(delivered.length - new Set(delivered).size, WINDOW, 'no other receipt twice');
    assert.ok(seconds < 45, `the in-flight receipts came due again after their claim (${seconds}s)`);
    await rx.unbind();
    await tx.unbind();
  });
});
