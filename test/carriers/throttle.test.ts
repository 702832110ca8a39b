// Throttle backoff: the submit rate is halved once per throttle episode, not once per ESME_RTHROTTLED answer
// (a full window of throttled answers used to drive the rate to 1/s).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TokenBucket } from '../../src/carriers/smpp/window.ts';
import { pair, sms, waitFor } from './helpers.ts';

test('TokenBucket: answers to submits already in flight at a cut extend the pause but do not cut again', () => {
  const bucket = new TokenBucket(800);
  const windowSentAt = performance.now();
  assert.equal(bucket.throttled(50, windowSentAt), true, 'the first throttled answer cuts');
  for (let i = 0; i < 49; i++) assert.equal(bucket.throttled(50, windowSentAt), false);
  assert.equal(bucket.currentRate, 400, 'one cut for a window of 50 answers');
  // A submit sent after the cut and throttled again starts a new episode.
  assert.equal(bucket.throttled(50, performance.now()), true);
  assert.equal(bucket.currentRate, 200);
  bucket.releaseAll();
});

test('a window of ESME_RTHROTTLED answers over SMPP halves the rate once, and every message still goes', async () => {
  const window = 20;
  // A long pause keeps the retries out of the measurement: the first window's answers all come in before it ends.
  const p = await pair({}, { windowSize: window, maxSubmitsPerSecond: 1000, throttlePauseMs: 1000 });
  try {
    p.simulator.throttle(true);
    const sending = Promise.all(
      Array.from({ length: window }, (_, i) => p.carrier.submit(sms(`9725066${String(i).padStart(5, '0')}`, `t${i}`))),
    );
    await waitFor(() => p.simulator.stats().throttled === window, 2000, 'a whole window answered ESME_RTHROTTLED');
    await new Promise((r) => setTimeout(r, 50)); // the answers' way back to the carrier
    assert.equal(p.simulator.stats().throttled, window, 'no retry yet (still paused)');
    assert.equal(p.carrier.stats().rate, 500, `rate after ${window} throttled answers`);
    p.simulator.throttle(false);
    const results = await sending;
    assert.ok(
      results.every((r) => r.ok),
      JSON.stringify(results.filter((r) => !r.ok)),
    );
    assert.equal(p.simulator.stats().messagesReceived, window);
    assert.ok(p.carrier.stats().rate > 500, 'successes creep back towards the configured rate');
  } finally {
    await p.close();
  }
});
