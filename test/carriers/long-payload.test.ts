// Long messages in message_payload for a carrier configured with longMessages "payload" (read from a carriers
// file as `yona serve` reads it): one submit_sm with an empty short_message, decoded whole by the simulator and
// listed by `yona sim messages`, one carrier id and one receipt. Over real TCP on loopback.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCarriersFile } from '../../src/delivery/carrier-setup.ts';
import { SmscSimulator } from '../../src/carriers/simulator/index.ts';
import { SmppCarrier, type SmppCarrierConfig } from '../../src/carriers/smpp/connector.ts';
import { submitBodies } from '../../src/carriers/smpp/payload.ts';
import type { Receipt } from '../../src/carriers/types.ts';
import { runSim } from '../../src/cli/sim.ts';
import { decodeFromSmpp } from '../../src/carriers/smpp/encoding.ts';
import { countParts } from '../../src/domain/encoding.ts';
import { sms, waitFor } from './helpers.ts';

const HEBREW = 'שלום! זו הודעה ארוכה בעברית שנשלחת כולה ב-message_payload ולא בחלקים מחוברים. ';
const GSM = 'A long GSM-7 text with {braces}, [brackets] and the euro sign €, sent whole in one PDU. ';

it('submitBodies: one message_payload holding the whole encoded text, or plain parts', () => {
  const text = HEBREW.repeat(3);
  const payload = submitBodies(text, 'payload', 7);
  assert.deepEqual([payload.dataCoding, payload.esmClass, payload.bodies.length], [8, 0, 1]);
  assert.equal((payload.bodies[0].short_message as Buffer).length, 0);
  assert.equal(decodeFromSmpp(payload.bodies[0].message_payload as Buffer, 8, false).text, text);
  const gsm = submitBodies(GSM.repeat(3), 'payload', 7);
  assert.equal(decodeFromSmpp(gsm.bodies[0].message_payload as Buffer, 0, false).text, GSM.repeat(3));
  const udh = submitBodies(text, 'udh', 7);
  assert.deepEqual([udh.esmClass, udh.bodies.length], [0x40, countParts(text).parts]);
  assert.deepEqual(
    submitBodies('short', 'payload', 7).bodies.map((b) => Object.keys(b)),
    [['short_message']],
  );
});

describe('a carrier that takes long messages in message_payload', () => {
  let dir: string;
  let simulator: SmscSimulator;
  let carrier: SmppCarrier;
  const receipts: Receipt[] = [];
  const sim = async (...args: string[]) => {
    const lines: string[] = [];
    await runSim([...args, '--control', `http://127.0.0.1:${simulator.controlPort()}`], (l) => lines.push(l));
    return lines;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'yona-payload-'));
    simulator = new SmscSimulator({ systemId: 'yona', password: 'secret', receiptDelayMs: 10, controlPort: 0 });
    const port = await simulator.start();
    const file = join(dir, 'carriers.json');
    writeFileSync(
      file,
      JSON.stringify({
        carriers: [
          {
            name: 'payload',
            host: '127.0.0.1',
            port,
            systemId: 'yona',
            password: 'secret',
            longMessages: 'payload',
            responseTimeoutMs: 1000,
          },
        ],
      }),
    );
    const [config] = readCarriersFile(file).carriers as SmppCarrierConfig[];
    assert.equal(config.longMessages, 'payload');
    carrier = new SmppCarrier(config);
    carrier.onReceipt((r) => void receipts.push(r));
    await carrier.start();
  });
  after(async () => {
    await carrier.stop();
    await simulator.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends a long Hebrew message as one submit_sm that arrives whole, with one id and one receipt', async () => {
    const text = HEBREW.repeat(4);
    assert.ok(countParts(text).parts >= 4);
    const before = simulator.stats().submitsReceived;
    const r = await carrier.submit(sms('972501118888', text));
    assert.ok(r.ok && r.carrierMessageIds.length === 1, JSON.stringify(r));
    assert.equal(simulator.stats().submitsReceived - before, 1, 'one submit_sm');
    const [m] = simulator.messages({ to: '972501118888' });
    assert.deepEqual(
      [m.text, m.parts, m.dataCoding, m.messagePayload, m.messageIds],
      [text, 1, 8, true, r.carrierMessageIds],
    );
    await waitFor(() => receipts.some((x) => x.carrierMessageId === r.carrierMessageIds[0]), 2000, 'its receipt');
    assert.equal(receipts.filter((x) => x.carrierMessageId === r.carrierMessageIds[0]).length, 1);
    const listed = JSON.parse((await sim('messages', '--to', '972501118888', '--json'))[0]) as Array<{
      text: string;
      parts: number;
    }>;
    assert.deepEqual(
      listed.map((x) => [x.text, x.parts]),
      [[text, 1]],
    );
    const human = (await sim('messages', '--to', '972501118888')).join('\n');
    assert.match(human, /1 part \(message_payload\) UCS-2/);
    assert.ok(human.includes(text.trim()));
  });

  it('sends long GSM-7 text (extension characters too) whole, and short text as a plain short_message', async () => {
    const long = GSM.repeat(3);
    const r = await carrier.submit(sms('972501118889', long));
    assert.ok(r.ok && r.carrierMessageIds.length === 1);
    const [m] = simulator.messages({ to: '972501118889' });
    assert.deepEqual([m.text, m.dataCoding, m.messagePayload], [long, 0, true]);
    assert.ok((await carrier.submit(sms('972501118890', 'short one'))).ok);
    const [s] = simulator.messages({ to: '972501118890' });
    assert.deepEqual([s.text, s.messagePayload], ['short one', undefined]);
  });

  it('a payload over the package 16 KiB PDU limit (about 200 UCS-2 parts) still arrives whole', async () => {
    const text = 'א'.repeat(67 * 200);
    const r = await carrier.submit(sms('972501118891', text));
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(simulator.messages({ to: '972501118891' })[0].text, text);
  });
});
