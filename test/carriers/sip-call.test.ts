// The voice connector's call against sipp, an independent SIP peer on loopback: an answered call plays the
// rendered message over RTP in the law the answer chose (20 ms packets, for the audio's duration x repeat plus
// the pauses), then BYE; busy, decline and a callee that only rings (cancelled at the ring timeout) map to their
// outcomes; a trunk's digest challenge is answered. (The speech the calls play: test/speech/speech.test.ts.)
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { placeCall, type CallRequest, type Trunk } from '../../src/carriers/sip/call.ts';
import { PACKET_MS, playbackFrames, TRAILING_SILENCE_MS } from '../../src/carriers/sip/rtp.ts';
import { encodeG711, type G711Law } from '../../src/speech/g711.ts';
import { CachedSpeech, EspeakEngine } from '../../src/speech/speech.ts';
import { startSipp, voiceToolsAvailable, type SippPeer } from '../helpers/sipp.ts';

const available = voiceToolsAvailable();
const speech = new CachedSpeech(new EspeakEngine());
const TEXT = 'שלום, הקוד שלך הוא 482913';
const trunk = (port: number, over: Partial<Trunk> = {}): Trunk => ({
  host: '127.0.0.1',
  port,
  callerId: '035550000',
  localIp: '127.0.0.1',
  ...over,
});
/** The message as the callee hears it in `law`. */
const heard = async (law: G711Law, voice: 'ymMale' | 'ymFemale' = 'ymMale', rate = 0) =>
  encodeG711(await speech.render({ text: TEXT, voice, rate }), law);
const request = (over: Partial<CallRequest> = {}): CallRequest => ({
  to: '0521234567',
  repeat: 1,
  ringTimeoutMs: 5000,
  audio: () => speech.render({ text: TEXT, voice: 'ymMale', rate: 0 }),
  ...over,
});

describe('a call to sipp', { skip: !available }, () => {
  let peer: SippPeer | undefined;
  after(() => peer?.stop());

  it('is answered, plays the message twice over RTP for its duration, and hangs up with BYE', async () => {
    peer = await startSipp('uas');
    const audio = await heard('pcmu');
    const outcome = await placeCall(trunk(peer.port), request({ repeat: 2 }));
    assert.equal(outcome.result, 'answered', outcome.reason);
    assert.equal(outcome.sipStatus, 200);
    const media = outcome.media!;
    assert.equal(media.law, 'pcmu', 'sipp answers PCMU');
    const expected = playbackFrames(audio, 'pcmu', 2).length;
    assert.equal(media.packets, expected + TRAILING_SILENCE_MS / PACKET_MS, 'the message, then 200 ms of silence');
    assert.equal(media.complete, true);
    const expectedMs = expected * PACKET_MS;
    // Paced in real time: never faster (no packet leaves before its 20 ms slot; load cannot cause that), and not
    // stretched (packets paced from the previous one, or 40 ms apart, would take 1.5x or more); a stalled machine
    // only delays the last packets, which the media clock then sends at once.
    assert.equal(media.durationMs, expectedMs, 'every frame of the message counted as played');
    const sentOver = media.sentOverMs;
    assert.ok(sentOver >= expectedMs - 2, `${expectedMs} ms of audio sent over ${sentOver} ms: too fast`);
    assert.ok(sentOver < expectedMs * 1.5, `${expectedMs} ms of audio sent over ${sentOver} ms: stretched`);
    assert.ok(media.received >= expected * 0.95, `sipp echoed ${media.received} of ${expected} packets`);
    assert.equal(await peer.exit, 0, 'sipp saw the call through (INVITE, ACK, BYE)');
  });

  it('maps 486 to busy and 603 to refused, acknowledging each', async () => {
    peer = await startSipp('busy');
    const busy = await placeCall(trunk(peer.port), request());
    assert.deepEqual([busy.result, busy.sipStatus, busy.reason], ['busy', 486, '486 Busy Here']);
    assert.equal(await peer.exit, 0, 'sipp got its ACK');
    peer = await startSipp('decline');
    const declined = await placeCall(trunk(peer.port), request());
    assert.deepEqual([declined.result, declined.sipStatus], ['refused', 603]);
    assert.equal(await peer.exit, 0);
  });

  it('cancels a call that rings past the ring timeout: no answer', async () => {
    peer = await startSipp('ring');
    const started = Date.now();
    const outcome = await placeCall(trunk(peer.port), request({ ringTimeoutMs: 1000 }));
    assert.deepEqual([outcome.result, outcome.sipStatus], ['no_answer', 487]);
    assert.ok(Date.now() - started < 4000);
    assert.equal(await peer.exit, 0, 'sipp got the CANCEL and the ACK of its 487');
  });

  it('answers a digest challenge with the trunk credentials, in the law the answer chose', async () => {
    peer = await startSipp('auth');
    const outcome = await placeCall(trunk(peer.port, { username: 'trunkuser', password: 'trunkpass' }), request());
    assert.equal(outcome.result, 'answered', outcome.reason);
    assert.equal(outcome.media!.law, 'pcma');
    assert.equal(await peer.exit, 0);
    peer = await startSipp('auth');
    const refused = await placeCall(trunk(peer.port, { username: 'trunkuser', password: 'wrong' }), request());
    assert.deepEqual([refused.result, refused.sipStatus], ['rejected', 403]);
  });

  it('places the call over TCP too', async () => {
    peer = await startSipp('uas', 1, 'tcp');
    const outcome = await placeCall(trunk(peer.port, { transport: 'tcp' }), request());
    assert.deepEqual(
      [outcome.result, outcome.reason],
      ['answered', '200 OK'],
      'answered over TCP, and our BYE got its 200',
    );
    assert.ok(outcome.media!.received >= outcome.media!.packets * 0.95, 'sipp echoed the RTP');
    // sipp's exit code is not checked here: over TCP it counts a call whose connection closed during its
    // closing wait as failed, though every message of the call was exchanged.
  });

  it('fails when nothing answers at the trunk address', async () => {
    const outcome = await placeCall(trunk(9), request({ ringTimeoutMs: 300 }));
    assert.deepEqual(
      [outcome.result, outcome.reason, outcome.sipStatus],
      ['failed', 'no response from the trunk', undefined],
    );
    const tcp = await placeCall(trunk(9, { transport: 'tcp' }), request());
    assert.equal(tcp.result, 'failed');
    assert.match(tcp.reason, /^cannot reach the trunk: connect ECONNREFUSED/);
  });
});
