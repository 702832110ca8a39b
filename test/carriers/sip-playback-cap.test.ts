// The playback cap of a call past one and two minutes, against figures written here: a call plays at most the
// minutes it was paid for (the connector passes spoken.paidSeconds as the call's maxPlayMs), in 20 ms frames of
// 160 samples at 8 kHz, then 200 ms of silence; a call shorter than what was paid plays to its end.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { playback } from '../../src/carriers/sip/rtp.ts';
import { callPrice } from '../../src/domain/pricing.ts';

/** `seconds` of G.711 A-law audio (not silence). */
const audio = (seconds: number) => Buffer.alloc(seconds * 8000, 0x55);
const TRAILING_FRAMES = 10;

describe('the playback cap', () => {
  it('speech of 130 s priced on an estimate of 63.6 s (700 letters, paid 120 s) plays 120 s: 6000 frames', () => {
    const { paidSeconds } = callPrice('א'.repeat(700), { rate: 0, repeat: 1 }, 2, undefined);
    const { payload, messageFrames } = playback(audio(130), 'pcma', 1, { maxMs: paidSeconds * 1000 });
    assert.equal(messageFrames, 6000);
    assert.equal(payload.length, (6000 + TRAILING_FRAMES) * 160);
    assert.equal(payload[6000 * 160 - 1], 0x55, 'the last paid frame is speech');
    assert.equal(payload[6000 * 160], 0xd5, 'then silence');
  });

  it('played twice past two minutes: 63 s twice with a second between is 127 s, cut at the 120 s paid', () => {
    assert.equal(playback(audio(63), 'pcma', 2, { maxMs: 120_000 }).messageFrames, 6000);
    assert.equal(playback(audio(63), 'pcma', 2).messageFrames, 6350, 'uncapped: 127 s');
  });

  it('a call of 141 s paid for three minutes (180 s) plays to its end: 7050 frames', () => {
    const { seconds, credits, paidSeconds } = callPrice('rendered', { rate: 0, repeat: 2 }, 2, 70);
    assert.deepEqual([seconds, credits, paidSeconds], [141, 6, 180]);
    assert.equal(playback(audio(70), 'pcma', 2, { maxMs: paidSeconds * 1000 }).messageFrames, 7050);
  });
});
