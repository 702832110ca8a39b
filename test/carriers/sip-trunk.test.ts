// A voice trunk as a carrier, against the bundled simulator's SIP side: each submit places a call and its
// outcome comes back as a receipt in our delivery statuses (answered 102, busy 110, no answer 111, rejected
// 108); the simulator records the RTP each answered call got; the trunk's concurrent-call limit holds.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSocket } from 'node:dgram';
import { CallSimulator } from '../../src/carriers/simulator/index.ts';
import { formatResponse, parseSip } from '../../src/carriers/sip/message.ts';
import { checkTrunk } from '../../src/carriers/sip/options.ts';
import { SipCarrier, type SipTrunkConfig } from '../../src/carriers/sip/connector.ts';
import { PACKET_MS, playbackFrames, TRAILING_SILENCE_MS } from '../../src/carriers/sip/rtp.ts';
import { encodeG711 } from '../../src/speech/g711.ts';
import { CachedSpeech, EspeakEngine } from '../../src/speech/speech.ts';
import type { Receipt } from '../../src/carriers/types.ts';
import { voiceToolsAvailable } from '../helpers/sipp.ts';

const available = voiceToolsAvailable();
const TEXT = 'your code is 5521';

async function until<T>(check: () => T | undefined, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('a voice trunk against the bundled call simulator', { skip: !available }, () => {
  let sim: CallSimulator;
  let port: number;
  const speech = new CachedSpeech(new EspeakEngine());
  const trunk = (over: Partial<SipTrunkConfig> = {}): SipTrunkConfig => ({
    protocol: 'sip',
    name: 'voice',
    host: '127.0.0.1',
    port,
    callerId: '035550000',
    localIp: '127.0.0.1',
    maxCalls: 4,
    callsPerSecond: 0,
    ringTimeoutMs: 800,
    ...over,
  });

  before(async () => {
    sim = new CallSimulator();
    port = await sim.start();
  });
  after(() => sim.stop());

  it('reports each call outcome as a receipt with its delivery status', async () => {
    const carrier = new SipCarrier(trunk(), speech);
    const receipts: Receipt[] = [];
    carrier.onReceipt((r) => void receipts.push(r));
    await carrier.start();
    const numbers = {
      answered: '972521110001',
      busy: '972521110486',
      declined: '972521110603',
      silent: '972521110480',
      unknown: '972521110404',
    };
    const ids = new Map<string, string>();
    for (const [what, destination] of Object.entries(numbers)) {
      const r = await carrier.submit({
        messageId: ids.size + 1,
        source: 'x',
        destination,
        text: TEXT,
        spoken: { voice: 'ymFemale', rate: 0, repeat: 1 },
      });
      assert.ok(r.ok);
      ids.set(r.carrierMessageIds[0], what);
    }
    await until(() => (receipts.length === 5 ? true : undefined), 15_000, 'five outcomes');
    const statuses = Object.fromEntries(receipts.map((r) => [ids.get(r.carrierMessageId), r.status]));
    assert.deepEqual(statuses, { answered: 102, busy: 110, declined: 112, silent: 111, unknown: 108 });
    const [answered] = sim.calls({ to: numbers.answered });
    const audio = encodeG711(await speech.render({ text: TEXT, voice: 'ymFemale', rate: 0 }), 'pcma');
    const expected = playbackFrames(audio, 'pcma', 1).length;
    assert.equal(answered.law, 'pcma', 'the simulator takes the first law offered');
    assert.ok(
      Math.abs(answered.packets - expected - TRAILING_SILENCE_MS / PACKET_MS) <= 2,
      `${answered.packets} RTP packets received for ${expected} sent`,
    );
    assert.ok(answered.endedAt !== undefined, 'the call was hung up with BYE');
    await carrier.stop();
  });

  it('never has more calls up than the trunk allows', async () => {
    const carrier = new SipCarrier(trunk({ maxCalls: 2 }), speech);
    const receipts: Receipt[] = [];
    carrier.onReceipt((r) => void receipts.push(r));
    await carrier.start();
    let most = 0;
    const watch = setInterval(() => (most = Math.max(most, carrier.activeCalls())), 5);
    const before = sim.calls().length;
    await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        carrier.submit({
          messageId: 100 + i,
          source: 'x',
          destination: `97252222000${i}`,
          text: 'hi',
          spoken: { voice: 'ymMale', rate: 5, repeat: 1 },
        }),
      ),
    );
    await until(() => (receipts.length === 5 ? true : undefined), 20_000, 'five calls');
    clearInterval(watch);
    assert.equal(most, 2);
    const calls = sim.calls().slice(before);
    // The most calls up at one instant, swept over their starts and ends in time order (an end before a start
    // of the same millisecond): three calls that each overlap one other are not three at once.
    const events = calls
      .flatMap(
        (c): Array<[number, number]> => [
          [c.startedAt, 1],
          [c.endedAt ?? Number.POSITIVE_INFINITY, -1],
        ],
      )
      .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let up = 0;
    let overlapping = 0;
    for (const [, change] of events) overlapping = Math.max(overlapping, (up += change));
    assert.ok(overlapping <= 2, `the simulator saw ${overlapping} calls at once`);
    await carrier.stop();
  });
});

describe('a trunk health check (OPTIONS)', () => {
  it('shows the bundled simulator up, and a trunk answering 503 down', async () => {
    const sim = new CallSimulator();
    const port = await sim.start();
    const trunk = { host: '127.0.0.1', port, callerId: '035550000', localIp: '127.0.0.1' };
    const up = await checkTrunk(trunk);
    assert.deepEqual([up.up, up.sipStatus], [true, 200]);
    await sim.stop();
    const overloaded = createSocket('udp4');
    overloaded.on('message', (raw, from) => {
      const request = parseSip(raw)!;
      overloaded.send(formatResponse(request, 503, 'Service Unavailable'), from.port, from.address);
    });
    await new Promise<void>((r) => overloaded.bind(0, '127.0.0.1', () => r()));
    const down = await checkTrunk({ ...trunk, port: overloaded.address().port });
    assert.deepEqual([down.up, down.sipStatus, down.error], [false, 503, '503 Service Unavailable']);
    overloaded.close();
  });
});

describe('a voice trunk whose speech engine fails', () => {
  it('refuses the message for good before any call is placed', async () => {
    const sim = new CallSimulator();
    const port = await sim.start();
    const broken = { render: () => Promise.reject(new Error('espeak-ng could not run')) };
    const carrier = new SipCarrier(
      {
        protocol: 'sip',
        name: 'mute',
        host: '127.0.0.1',
        port,
        callerId: '035550000',
        localIp: '127.0.0.1',
        maxCalls: 1,
        callsPerSecond: 0,
        ringTimeoutMs: 500,
      },
      broken,
    );
    await carrier.start();
    const result = await carrier.submit({
      messageId: 1,
      source: 'x',
      destination: '972521119999',
      text: 'hello',
      spoken: { voice: 'ymMale', rate: 0, repeat: 1 },
    });
    assert.deepEqual(result, {
      ok: false,
      transient: false,
      error: 'the message could not be spoken: espeak-ng could not run',
    });
    assert.equal(carrier.freeSlots(), 1, 'its call slot is free again');
    assert.equal(sim.calls().length, 0);
    await carrier.stop();
    await sim.stop();
  });
});
