// 10,000 malformed PDUs against the SMPP server: random command ids and bodies, mutated submit_sm (flipped bytes,
// cut or stretched lengths, odd TLVs) on bound and unbound connections, and bare garbage. The server answers
// each (generic_nack, an error status) or closes the connection; it never crashes, logs no error and answers
// no 998, and a customer binds and submits afterwards as before.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import smpp from 'smpp';
import { createLogger } from '../../src/logger.ts';
import { mulberry32 } from '../helpers/random.ts';
import { storeTargets } from '../helpers/stores.ts';
import { eventually } from '../delivery/delivery-helpers.ts';
import { Esme } from './esme.ts';
import { startSmppHarness, type SmppHarness } from './harness.ts';

const PDUS = Number(process.env.FUZZ_PDUS ?? 10_000);
const PER_CONNECTION = 50;

const COMMAND_IDS = [
  ...Object.values(smpp.commands as Record<string, { id: number }>).map((c) => c.id),
  0x00000000,
  0x7fffffff,
  0xffffffff,
  0x00000099,
];

function pduBuffer(commandId: number, seq: number, body: Buffer, length?: number): Buffer {
  const head = Buffer.alloc(16);
  head.writeUInt32BE(length ?? 16 + body.length, 0);
  head.writeUInt32BE(commandId >>> 0, 4);
  head.writeUInt32BE(0, 8);
  head.writeUInt32BE(seq >>> 0, 12);
  return Buffer.concat([head, body]);
}

const TEMPLATES = [
  new smpp.PDU('submit_sm', {
    source_addr: 'Yona',
    destination_addr: '0521119999',
    registered_delivery: 1,
    short_message: Buffer.from('fuzz me'),
  }),
  new smpp.PDU('submit_sm', {
    source_addr: 'Yona',
    destination_addr: '0521119999',
    esm_class: 0x40,
    data_coding: 8,
    short_message: Buffer.from([0x05, 0x00, 0x03, 0x01, 0x02, 0x01, 0x05, 0xd0]),
  }),
  new smpp.PDU('submit_multi', {
    source_addr: 'Yona',
    dest_address: [{ dest_addr_ton: 1, dest_addr_npi: 1, destination_addr: '972521119999' }],
    short_message: Buffer.from('multi'),
  }),
  new smpp.PDU('query_sm', { message_id: '1', source_addr: 'Yona' }),
  new smpp.PDU('cancel_sm', { message_id: '1' }),
  new smpp.PDU('enquire_link', {}),
  new smpp.PDU('bind_transceiver', { system_id: 'fuzz1', password: 'pw' }),
].map((p) => p.toBuffer());

/** One malformed PDU (or stretch of garbage), from the seed. */
function malformed(rand: () => number, seq: number): Buffer {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(rand() * 256)));
  const kind = rand();
  if (kind < 0.3) return pduBuffer(pick(COMMAND_IDS), seq, bytes(Math.floor(rand() * 64)));
  if (kind < 0.85) {
    const b = Buffer.from(pick(TEMPLATES));
    b.writeUInt32BE(seq, 12);
    const flips = 1 + Math.floor(rand() * 4);
    for (let i = 0; i < flips; i++) {
      const at = 16 + Math.floor(rand() * Math.max(1, b.length - 16));
      if (at < b.length) b[at] = Math.floor(rand() * 256);
    }
    const cut = rand();
    if (cut < 0.2) return pduBuffer(b.readUInt32BE(4), seq, b.subarray(16, 16 + Math.floor(rand() * (b.length - 16))));
    if (cut < 0.3)
      return Buffer.concat([
        b,
        pduBuffer(0x00000004, seq + 1, Buffer.concat([bytes(6), Buffer.from([0x04, 0x24, 0xff, 0xff])])),
      ]);
    return b;
  }
  if (kind < 0.95) return pduBuffer(pick(COMMAND_IDS), seq, bytes(4), pick([0, 3, 15, 17, 0x7fffffff]));
  return bytes(1 + Math.floor(rand() * 40));
}

const targets = await storeTargets();
for (const target of targets) {
  describe(`SMPP server: ${PDUS} malformed PDUs (${target.name})`, () => {
    let h: SmppHarness;
    const lines: string[] = [];

    before(async () => {
      const sink = new Writable({
        write(chunk, _enc, done) {
          lines.push(...String(chunk).split('\n').filter(Boolean));
          done();
        },
      });
      h = await startSmppHarness(target, { logger: createLogger('info', sink) });
      await h.customer('fuzz1', 'pw', { credits: 1_000_000 });
    });
    after(() => h?.close());

    it('no crash, no error logged, no 998; a customer binds and submits afterwards', async () => {
      const rand = mulberry32(42);
      let sent = 0;
      let seq = 1;
      let answers = 0;
      let closes = 0;
      while (sent < PDUS) {
        const bound = rand() < 0.5;
        const socket: Socket = connect(h.port, '127.0.0.1');
        socket.on('data', (d) => {
          answers += Math.max(1, Math.floor(d.length / 16));
        });
        await new Promise<void>((resolve, reject) => {
          socket.once('connect', resolve);
          socket.once('error', reject);
        });
        socket.on('error', () => {});
        const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
        if (bound) socket.write(TEMPLATES[TEMPLATES.length - 1]);
        for (let i = 0; i < PER_CONNECTION && sent < PDUS; i++, sent++) {
          if (socket.destroyed) break;
          socket.write(malformed(rand, seq++));
        }
        await Promise.race([closed, new Promise((r) => setTimeout(r, 50))]);
        if (socket.destroyed) closes++;
        socket.destroy();
        await closed;
      }
      assert.ok(answers > 0 && closes > 0, `answers ${answers}, closes ${closes}`);
      // Mutated binds with a wrong password locked the account out: a new password lifts it.
      await h.t.admin('smpp-password', 'fuzz1', 'pw');
      const esme = await Esme.connect(h.port);
      const status = await esme.bind('transceiver', 'fuzz1', 'pw');
      assert.equal(status, 0);
      await eventually(
        async () => (Object.values(h.server().bindCounts()).reduce((a, b) => a + b, 0) === 1 ? true : undefined),
        5000,
        'every fuzzed connection let go',
      );
      const resp = await esme.submit({ destination_addr: '0521110099', short_message: Buffer.from('still here') });
      assert.equal(resp.command_status, 0);
      await esme.unbind();
      const errors = lines.filter((l) => {
        const entry = JSON.parse(l) as { level: number; msg?: string };
        return entry.level >= 50 || /998|unexpected/i.test(entry.msg ?? '');
      });
      assert.deepEqual(errors, []);
    });
  });
}
