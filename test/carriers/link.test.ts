// Link health: enquire_link timeouts on a silent peer, reconnects, graceful stop, and the control channel.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import smpp from 'smpp';
import { generate } from 'selfsigned';
import { SmppCarrier } from '../../src/carriers/smpp/connector.ts';
import { SimulatorClient } from '../../src/carriers/simulator/index.ts';
import { carrierConfig, pair, sms, waitFor } from './helpers.ts';

// A raw TCP server that answers bind_transceiver and then never answers anything again.
async function silentServer() {
  const connections: Array<{ commands: string[]; closedAt?: number }> = [];
  const server = net.createServer((socket) => {
    const conn: { commands: string[]; closedAt?: number } = { commands: [] };
    connections.push(conn);
    let buffer = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      while (buffer.length >= 4 && buffer.length >= buffer.readUInt32BE(0)) {
        const pdu = new smpp.PDU(buffer.subarray(0, buffer.readUInt32BE(0)));
        buffer = buffer.subarray(buffer.readUInt32BE(0));
        conn.commands.push(pdu.command);
        if (pdu.command === 'bind_transceiver') socket.write(pdu.response({ system_id: 'mute' }).toBuffer());
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => (conn.closedAt = Date.now()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, connections, port: (server.address() as net.AddressInfo).port };
}

test('an unanswered enquire_link closes the connection and the carrier reconnects', async () => {
  const silent = await silentServer();
  const carrier = new SmppCarrier(carrierConfig(silent.port, { enquireLinkMs: 150, responseTimeoutMs: 200 }));
  try {
    await carrier.start();
    const boundAt = Date.now();
    assert.equal(carrier.stats().bound, 1);
    const submit = await carrier.submit(sms('972501112222', 'into the void'));
    assert.deepEqual(submit, { ok: false, transient: true, error: 'submit_sm timeout' });
    await waitFor(() => silent.connections.length >= 2, 3000, 'a second connection');
    const first = silent.connections[0];
    assert.ok(first.closedAt, 'the client closed the silent connection');
    assert.ok(first.commands.includes('enquire_link'), 'it probed with enquire_link first');
    assert.ok(
      first.closedAt - boundAt >= 300 && first.closedAt - boundAt < 1500,
      `closed after ${first.closedAt - boundAt} ms`,
    );
    await waitFor(() => carrier.stats().bound === 1, 2000, 'the carrier bound again');
  } finally {
    await carrier.stop();
    silent.server.close();
  }
});

test('a simulator gone silent is detected, and traffic resumes when it answers again', async () => {
  const p = await pair({}, { enquireLinkMs: 100, responseTimeoutMs: 150 });
  try {
    p.simulator.silence(true);
    await waitFor(() => p.carrier.stats().bound === 0, 2000, 'the silent link to be dropped');
    p.simulator.silence(false);
    await waitFor(() => p.carrier.stats().bound === 1, 3000, 'a new bind');
    assert.equal((await p.carrier.submit(sms('972501113333', 'back'))).ok, true);
    assert.ok(p.simulator.stats().connections >= 2);
  } finally {
    await p.close();
  }
});

test('stop() waits for in-window submits, then unbinds every session', async () => {
  const p = await pair({}, { binds: 2 });
  p.simulator.setSubmitResponseDelay(100);
  const pending = p.carrier.submit(sms('972501114444', 'last one'));
  await waitFor(() => p.simulator.stats().submitsReceived === 1, 1000, 'the submit');
  await p.carrier.stop();
  assert.equal((await pending).ok, true, 'the in-window submit was answered before unbinding');
  assert.equal(p.simulator.stats().unbinds, 2);
  const late = await p.carrier.submit(sms('972501114445', 'after stop'));
  assert.deepEqual([late.ok, !late.ok && late.transient], [false, true]);
  await p.simulator.stop();
});

test('the HTTP control channel sends MO and lists received messages', async () => {
  const p = await pair({ controlPort: 0 });
  try {
    const port = p.simulator.controlPort();
    assert.ok(port && port !== p.port);
    const client = new SimulatorClient(`http://127.0.0.1:${port}`);
    assert.deepEqual(await client.mo({ from: '972507770000', to: '019', text: 'מה שלומך?' }), {
      parts: 1,
      delivered: true,
    });
    await waitFor(() => p.inbound.length === 1, 2000, 'the MO');
    assert.deepEqual([p.inbound[0].from, p.inbound[0].text], ['972507770000', 'מה שלומך?']);
    assert.ok((await p.carrier.submit(sms('972507771234', 'seen by the sim'))).ok);
    const listed = await client.messages('972507771234');
    assert.deepEqual(
      listed.map((m) => m.text),
      ['seen by the sim'],
    );
    const bad = await fetch(`http://127.0.0.1:${port}/mo`, { method: 'POST', body: '{"from":1}' });
    assert.equal(bad.status, 400);
    const stats = (await (await fetch(`http://127.0.0.1:${port}/stats`)).json()) as { submitsReceived: number };
    assert.equal(stats.submitsReceived, 1);
  } finally {
    await p.close();
  }
});

test('binds, submits and receives receipts over TLS', async () => {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], { keySize: 2048, algorithm: 'sha256' });
  const tlsOptions = { ca: pems.cert, servername: 'localhost', checkServerIdentity: () => undefined };
  const p = await pair({ tls: { key: pems.private, cert: pems.cert } }, { tls: true, tlsOptions });
  try {
    assert.equal(p.carrier.stats().bound, 1);
    const r = await p.carrier.submit(sms('972501115555', 'over TLS'));
    assert.ok(r.ok);
    await waitFor(() => p.receipts.length === 1, 2000, 'the receipt');
    assert.equal(p.simulator.messages()[0].text, 'over TLS');
  } finally {
    await p.close();
  }
});
