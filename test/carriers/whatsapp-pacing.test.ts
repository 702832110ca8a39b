// A business number's pace: nodes holding shares of its rate send together no faster than the rate; each user
// gets a short burst and then about one message per interval; a user whose turn is far off is sent back.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Pacing } from '../../src/carriers/whatsapp-cloud/pacing.ts';

describe('WhatsApp pacing', () => {
  it('two nodes holding half the shares each send the number rate together, not more', async () => {
    const options = { messagesPerSecond: 200, shares: 10, userIntervalMs: 0, userBurst: 1 };
    const a = new Pacing(options);
    const b = new Pacing(options);
    a.useShares(5);
    b.useShares(5);
    assert.equal(a.rate + b.rate, 200);
    let sent = 0;
    const start = performance.now();
    const until = start + 1000;
    const run = async (p: Pacing, n: number) => {
      for (let i = 0; performance.now() < until; i++) {
        await p.turn(`u${n}-${i}`, 10_000);
        if (performance.now() <= until) sent++;
      }
    };
    await Promise.all([run(a, 1), run(b, 2)]);
    assert.ok(sent <= 200 + 12, `at most the rate and two 50 ms bursts in a second, got ${sent}`);
    assert.ok(sent >= 150, `close to the rate, got ${sent}`);
  });

  it('a node with no share sends nothing; a user gets a burst, then waits', async () => {
    const p = new Pacing({ messagesPerSecond: 1000, shares: 10, userIntervalMs: 6000, userBurst: 3 });
    p.useShares(0);
    assert.equal(p.rate, 0);
    p.useShares(10);
    for (let i = 0; i < 3; i++) assert.equal(await p.turn('972520000001', 100), true);
    assert.equal(await p.turn('972520000001', 100), false, 'the fourth is about 6 s away: sent back');
    assert.equal(await p.turn('972520000002', 100), true, 'another user is not held');
  });
});
