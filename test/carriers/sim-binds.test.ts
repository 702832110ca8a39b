// The simulator as a carrier with a bind limit: binds beyond --max-binds are refused ESME_RBINDFAIL over real
// SMPP, and its counters say how many are bound now, the most ever bound at once, and how many were refused;
// every message it logs carries the address of the bind it came on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import smpp from 'smpp';
import { SmscSimulator } from '../../src/carriers/simulator/index.ts';
import { STATUS } from '../../src/carriers/smpp/pdu.ts';
import { startSmscSimProcess } from '../helpers/smsc-sim-process.ts';
import { waitFor } from './helpers.ts';

interface Client {
  session: smpp.Session;
  local: string;
}

// Connects and binds a transceiver; resolves with the bind_resp status and the client's local address.
async function bind(port: number, host = '127.0.0.1'): Promise<{ status: number; client: Client }> {
  const session = smpp.connect({ url: `smpp://${host}:${port}`, auto_enquire_link_period: 0 });
  session.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    session.once('connect', () => resolve());
    session.once('error', reject);
  });
  const status = await new Promise<number>((resolve) => {
    session.bind_transceiver({ system_id: 'yona', password: 'secret' }, (pdu: smpp.PDU) =>
      resolve(Number(pdu.command_status)),
    );
  });
  return { status, client: { session, local: `${session.socket.localAddress}:${session.socket.localPort}` } };
}

async function submit(client: Client, to: string, text: string): Promise<number> {
  return new Promise<number>((resolve) => {
    client.session.submit_sm({ source_addr: 'Yona', destination_addr: to, short_message: text }, (pdu: smpp.PDU) =>
      resolve(Number(pdu.command_status)),
    );
  });
}

function close(clients: Client[]): void {
  for (const c of clients) c.session.destroy();
}

test('maxBinds: binds beyond the limit are refused ESME_RBINDFAIL; a freed slot can be bound again', async () => {
  const sim = new SmscSimulator({ systemId: 'yona', password: 'secret', maxBinds: 2, receiptDelayMs: 10 });
  const port = await sim.start();
  const clients: Client[] = [];
  try {
    const a = await bind(port);
    const b = await bind(port);
    clients.push(a.client, b.client);
    assert.equal(a.status, STATUS.OK);
    assert.equal(b.status, STATUS.OK);
    const c = await bind(port);
    clients.push(c.client);
    assert.equal(c.status, STATUS.BINDFAIL, 'the third bind is refused');
    assert.deepEqual(pick(sim.stats()), { boundNow: 2, maxBoundAtOnce: 2, bindsRefused: 1, binds: 2 });
    // A refused session is not bound: it cannot submit.
    assert.equal(await submit(c.client, '972501234567', 'x'), STATUS.INVBNDSTS);

    // Messages record the peer they came on.
    assert.equal(await submit(a.client, '972501111111', 'on a'), STATUS.OK);
    assert.equal(await submit(b.client, '972502222222', 'on b'), STATUS.OK);
    assert.equal(sim.messages({ to: '972501111111' })[0].peer, a.client.local);
    assert.equal(sim.messages({ to: '972502222222' })[0].peer, b.client.local);

    // One bound session goes away: its slot is free again, and the high-water mark stays.
    a.client.session.destroy();
    await waitFor(() => sim.stats().boundNow === 1, 3000, 'the closed bind released');
    const d = await bind(port);
    clients.push(d.client);
    assert.equal(d.status, STATUS.OK, 'a freed slot binds');
    const e = await bind(port);
    clients.push(e.client);
    assert.equal(e.status, STATUS.BINDFAIL);
    assert.deepEqual(pick(sim.stats()), { boundNow: 2, maxBoundAtOnce: 2, bindsRefused: 2, binds: 3 });
  } finally {
    close(clients);
    await sim.stop();
  }
});

test('no maxBinds: any number of binds, and maxBoundAtOnce follows them', async () => {
  const sim = new SmscSimulator({ systemId: 'yona', password: 'secret' });
  const port = await sim.start();
  const clients: Client[] = [];
  try {
    for (let i = 0; i < 5; i++) {
      const r = await bind(port);
      clients.push(r.client);
      assert.equal(r.status, STATUS.OK);
    }
    assert.deepEqual(pick(sim.stats()), { boundNow: 5, maxBoundAtOnce: 5, bindsRefused: 0, binds: 5 });
  } finally {
    close(clients);
    await sim.stop();
  }
});

test('yona smsc-sim --host --max-binds: the limit and the counters through the control channel', async () => {
  const sim = await startSmscSimProcess(['--host', '127.0.0.1', '--max-binds', '1']);
  const clients: Client[] = [];
  try {
    const a = await bind(sim.smppPort);
    const b = await bind(sim.smppPort);
    clients.push(a.client, b.client);
    assert.equal(a.status, STATUS.OK);
    assert.equal(b.status, STATUS.BINDFAIL);
    assert.equal(await submit(a.client, '972503333333', 'via cli'), STATUS.OK);
    const stats = await sim.stats();
    assert.deepEqual(pick(stats), { boundNow: 1, maxBoundAtOnce: 1, bindsRefused: 1, binds: 1 });
    const [m] = await sim.messages('972503333333');
    assert.equal(m.peer, a.client.local);
  } finally {
    close(clients);
    await sim.stop();
  }
});

function pick(s: { boundNow: number; maxBoundAtOnce: number; bindsRefused: number; binds: number }) {
  return { boundNow: s.boundNow, maxBoundAtOnce: s.maxBoundAtOnce, bindsRefused: s.bindsRefused, binds: s.binds };
}
