// Voice sends end to end over HTTP on every store, through real SIP and RTP: tts type 4 calls every
// destination (answered 102, busy 110, no answer 111 in dlr) and texts none; type 3 texts and calls; type 2
// texts regular phones and calls the filtered ones; calls are priced per started minute and a dry run prices
// them; a type 4 send to sipp (an independent UAS) plays RTP of the message's duration and hangs up.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CallSimulator } from '../../src/carriers/simulator/index.ts';
import type { SipTrunkConfig } from '../../src/carriers/sip/connector.ts';
import { PACKET_MS, playbackFrames, TRAILING_SILENCE_MS } from '../../src/carriers/sip/rtp.ts';
import { encodeG711, pcmSeconds } from '../../src/speech/g711.ts';
import { CachedSpeech, EspeakEngine, sharedSpeech } from '../../src/speech/speech.ts';
import { callCredits } from '../../src/domain/pricing.ts';
import { callSeconds, estimatedCallSeconds } from '../../src/domain/voice.ts';
import { startSipp, voiceToolsAvailable, type SippPeer } from '../helpers/sipp.ts';
import { storeTargets } from '../helpers/stores.ts';
import { campaignRow, messagesOf } from '../operations/send-helpers.ts';
import {
  dlrById,
  eventually,
  newSender,
  simCarrier,
  startDelivery,
  type DeliveryHarness,
  type Sender,
} from '../delivery/delivery-helpers.ts';

const available = voiceToolsAvailable();
const targets = available ? await storeTargets() : [];
const TEXT = 'התור שלך מחר בעשר';
/** A call's credits: its rendered speech, times repeat with the pauses, at 2 a started minute. */
const price = async (text: string, rate = 0, repeat = 2, voice: 'ymMale' | 'ymFemale' = 'ymMale') =>
  callCredits(callSeconds(pcmSeconds(await sharedSpeech().render({ text, voice, rate })), repeat), 2);

const trunkTo = (name: string, port: number, over: Partial<SipTrunkConfig> = {}): SipTrunkConfig => ({
  protocol: 'sip',
  name,
  host: '127.0.0.1',
  port,
  callerId: '035550000',
  localIp: '127.0.0.1',
  maxCalls: 10,
  callsPerSecond: 0,
  ringTimeoutMs: 1500,
  ...over,
});

for (const target of targets) {
  describe(`voice sends (${target.name})`, () => {
    let h: DeliveryHarness;
    let s: Sender;
    let calls: CallSimulator;

    before(async () => {
      calls = new CallSimulator();
      const sipPort = await calls.start();
      h = await startDelivery(target, {
        setup: (port) => ({ carriers: [simCarrier(port), trunkTo('voice', sipPort)], routes: [] }),
      });
      s = await newSender(h.t, 'caller', 1000);
    });
    after(async () => {
      await h.close();
      await calls.stop();
    });

    it('type 4 calls every destination and texts none; outcomes reach dlr; calls are priced per started minute', async () => {
      const before = (await s.balance()).credits;
      const reply = await s.sms({
        destinations: {
          phone: [
            { $: { id: 'v-ok' }, _: '0521310001' },
            { $: { id: 'v-busy' }, _: '0521310486' },
            { $: { id: 'v-quiet' }, _: '0521310480' },
          ],
        },
        message: TEXT,
        tts: { type: 4, voice: 'ymFemale', repeat: 1 },
      });
      assert.equal(reply.status, 0, reply.message);
      assert.deepEqual(
        [reply.recipients, reply.calls, reply.credits],
        [3, 3, 3 * (await price(TEXT, 0, 1, 'ymFemale'))],
      );
      assert.equal((await s.balance()).credits, before - reply.credits);
      const reports = await eventually(
        async () => {
          const r = await dlrById(s, ['v-ok', 'v-busy', 'v-quiet']);
          return ['v-ok', 'v-busy', 'v-quiet'].every((id) => r.get(id) && r.get(id)!.status !== '-1') ? r : undefined;
        },
        20_000,
        'the three call outcomes',
      );
      assert.deepEqual(
        ['v-ok', 'v-busy', 'v-quiet'].map((id) => reports.get(id)!.status),
        ['102', '110', '111'],
      );
      assert.deepEqual(
        ['v-ok', 'v-busy'].map((id) => reports.get(id)!.channel),
        ['call', 'call'],
      );
      assert.equal(reports.get('v-busy')!.call_seconds, undefined);
      assert.equal(h.simulator.messages({ to: '972521310001' }).length, 0, 'no text');
      const [answered] = calls.calls({ to: '972521310001' });
      const audio = encodeG711(
        await new CachedSpeech(new EspeakEngine()).render({ text: TEXT, voice: 'ymFemale', rate: 0 }),
        'pcma',
      );
      assert.ok(
        Math.abs(answered.packets - playbackFrames(audio, 'pcma', 1).length - TRAILING_SILENCE_MS / PACKET_MS) <= 2,
        `${answered.packets} RTP packets`,
      );
      assert.equal(
        reports.get('v-ok')!.call_seconds,
        Math.round(audio.length / 8000),
        'the seconds the message played',
      );
      const rows = await messagesOf(h.t, reply.campaign_id);
      assert.deepEqual(
        rows.map((m) => m.channel),
        ['call', 'call', 'call'],
      );
      assert.deepEqual(JSON.parse(rows[0].spoken!), { voice: 'ymFemale', rate: 0, repeat: 1, paidSeconds: 60 });
      assert.equal((await campaignRow(h.t, reply.campaign_id)).kind, 'tts');
    });

    it('type 3 texts and calls each destination', async () => {
      const reply = await s.sms({
        destinations: { phone: [{ $: { id: 'both' }, _: '0521310011' }] },
        message: 'spoken and texted',
        tts: { type: 3 },
      });
      assert.deepEqual(
        [reply.status, reply.recipients, reply.calls, reply.credits],
        [0, 1, 1, 1 + (await price('spoken and texted'))],
      );
      await eventually(() => calls.calls({ to: '972521310011' })[0]?.endedAt, 20_000, 'the call');
      await eventually(() => h.simulator.messages({ to: '972521310011' }).length === 1 || undefined, 8000, 'the text');
      const rows = await messagesOf(h.t, reply.campaign_id);
      assert.deepEqual(rows.map((m) => m.channel).sort(), ['call', 'sms']);
    });

    it('type 2 texts regular phones and calls the filtered ones', async () => {
      await h.t.admin('add-filtered', '0521310021');
      const reply = await s.sms({
        destinations: { phone: ['0521310021', '0521310022'] },
        message: 'kosher aware',
        tts: { type: 2, repeat: 1 },
      });
      assert.deepEqual([reply.status, reply.recipients, reply.calls], [0, 2, 1]);
      await eventually(() => calls.calls({ to: '972521310021' })[0]?.endedAt, 20_000, 'the call to the filtered phone');
      await eventually(
        () => h.simulator.messages({ to: '972521310022' }).length === 1 || undefined,
        8000,
        'the text to the regular one',
      );
      assert.equal(h.simulator.messages({ to: '972521310021' }).length, 0);
      assert.equal(calls.calls({ to: '972521310022' }).length, 0);
    });

    it('follows a type 2 text that a filtered handset refused (15) with one call, and remembers the phone', async () => {
      const before = (await s.balance()).credits;
      const reply = await s.sms({
        destinations: { phone: ['0521310015'] },
        message: 'try the phone',
        tts: { type: 2, repeat: 1 },
      });
      assert.deepEqual(
        [reply.status, reply.calls, reply.credits],
        [0, undefined, 1],
        'priced as a text: the handset is not known yet',
      );
      const call = await eventually(
        () => calls.calls({ to: '972521310015' }).find((c) => c.endedAt !== undefined),
        20_000,
        'the follow-up call',
      );
      assert.equal(call.behaviour, 'answer');
      const rows = await eventually(
        async () => {
          const r = await messagesOf(h.t, reply.campaign_id);
          return r.length === 2 && r.every((m) => m.status !== null && Number(m.status) !== -1) ? r : undefined;
        },
        20_000,
        'both outcomes',
      );
      assert.deepEqual(
        rows.map((m) => [m.channel, Number(m.status)]),
        [
          ['sms', 15],
          ['call', 102],
        ],
      );
      assert.equal(
        (await s.balance()).credits,
        before - 1 - callCredits(estimatedCallSeconds('try the phone', 0, 1), 2),
        'the call is charged when it is placed (on the estimate: a receipt does not wait for speech)',
      );
      const registry = await h.t.service.store.db
        .selectFrom('filtered_phones')
        .selectAll()
        .where('phone', '=', '972521310015')
        .executeTakeFirstOrThrow();
      assert.equal(registry.source, 'receipt');
      // Only once: the call's own outcome does not set off another, and the next type 2 send calls at once.
      const next = await s.sms({
        destinations: { phone: ['0521310015'] },
        message: 'again',
        tts: { type: 2, repeat: 1 },
      });
      assert.equal(next.calls, 1);
    });

    it('prices a voice send in a dry run and stores nothing', async () => {
      const before = (await s.balance()).credits;
      const reply = await s.sms(
        { destinations: { phone: ['0521310031'] }, message: TEXT, tts: { type: 4, rate: -10 } },
        { dryRun: true },
      );
      assert.deepEqual(
        [reply.status, reply.calls, reply.credits, reply.campaign_id],
        [0, 1, await price(TEXT, -10, 2), 0],
      );
      assert.equal((await s.balance()).credits, before);
    });
  });
}

describe('a voice send to a trunk that never answers', { skip: !available }, () => {
  let h: DeliveryHarness;
  let s: Sender;

  before(async () => {
    const [target] = await storeTargets();
    h = await startDelivery(target, {
      setup: (port) => ({ carriers: [simCarrier(port), trunkTo('deaf', 9, { ringTimeoutMs: 300 })], routes: [] }),
      // No answer at all is the trunk's failure: tried on the next trunk of the route, on the last one retried
      // with backoff; one attempt here, so it ends at once.
      settings: { maxAttempts: 1 },
    });
    s = await newSender(h.t, 'unheard', 100);
  });
  after(() => h.close());

  it('reports the call failed (1) once its attempts are spent and refunds it: no call was placed', async () => {
    const reply = await s.sms({
      destinations: { phone: [{ $: { id: 'deaf-1' }, _: '0521330001' }] },
      message: TEXT,
      tts: { type: 4 },
    });
    assert.equal(reply.status, 0, reply.message);
    assert.equal((await s.balance()).credits, 100 - reply.credits);
    await eventually(
      async () => (await dlrById(s, ['deaf-1'])).get('deaf-1')?.status === '1' || undefined,
      45_000,
      'the failed call (timer B: 64 x T1 without a response)',
    );
    await eventually(async () => ((await s.balance()).credits === 100 ? true : undefined), 5000, 'the refund');
  });
});

describe('a voice send to sipp as the trunk', { skip: !available }, () => {
  let h: DeliveryHarness;
  let s: Sender;
  let peer: SippPeer;

  before(async () => {
    peer = await startSipp('uas');
    const [target] = await storeTargets();
    h = await startDelivery(target, {
      setup: (port) => ({ carriers: [simCarrier(port), trunkTo('sipp', peer.port)], routes: [] }),
    });
    s = await newSender(h.t, 'sippcaller', 100);
  });
  after(async () => {
    peer.stop();
    await h.close();
  });

  it('places the call, streams RTP of the message duration, hangs up, and reports 102', async () => {
    const reply = await s.sms({
      destinations: { phone: [{ $: { id: 'sipp-1' }, _: '0521320001' }] },
      message: TEXT,
      tts: { type: 4, repeat: 2 },
    });
    assert.equal(reply.status, 0, reply.message);
    const report = await eventually(
      async () => (await dlrById(s, ['sipp-1'])).get('sipp-1')?.status === '102' || undefined,
      30_000,
      'the answered call',
    );
    assert.ok(report);
    assert.equal(await peer.exit, 0, 'sipp saw INVITE, ACK and BYE');
    const runtime = h.runtime();
    const trunk = runtime.carriers.get('sipp') as unknown as {
      outcomes: Array<{ media?: { packets: number; durationMs: number; received: number } }>;
    };
    const media = trunk.outcomes[0].media!;
    const audio = encodeG711(
      await new CachedSpeech(new EspeakEngine()).render({ text: TEXT, voice: 'ymMale', rate: 0 }),
      'pcmu',
    );
    const expectedMs = playbackFrames(audio, 'pcmu', 2).length * PACKET_MS;
    assert.ok(
      Math.abs(media.durationMs - expectedMs) < expectedMs * 0.05,
      `${media.durationMs} ms of RTP for ${expectedMs} ms of audio`,
    );
    assert.ok(media.received >= media.packets * 0.95, 'sipp echoed the RTP it got');
  });
});
