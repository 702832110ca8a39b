// whenQuiet, the wait before the suite's "exactly once" assertions: a duplicate arriving after the 200-300 ms a
// fixed sleep used to allow is still counted, a value that never settles fails the wait, and a quiet value
// returns once the settle period has passed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { whenQuiet } from './quiescence.ts';

describe('whenQuiet', () => {
  it('counts a duplicate that arrives after 300 ms, and returns once nothing changed for the settle period', async () => {
    const received = ['first'];
    setTimeout(() => received.push('duplicate'), 450);
    const started = Date.now();
    const count = await whenQuiet(() => received.length, 'the pushes', { quietMs: 600 });
    assert.equal(count, 2, 'the late duplicate is seen');
    assert.ok(Date.now() - started >= 450 + 600, 'the settle period restarts at the change');
  });

  it('fails when the value is still changing at the bound', async () => {
    let n = 0;
    const timer = setInterval(() => n++, 20);
    await assert.rejects(
      whenQuiet(() => n, 'the counter', { quietMs: 200, maxMs: 500 }),
      /the counter still changing after 500 ms/,
    );
    clearInterval(timer);
  });

  it('returns a value that does not change after the settle period', async () => {
    const started = Date.now();
    assert.deepEqual(await whenQuiet(async () => ({ rows: 3 }), 'the rows', { quietMs: 150 }), { rows: 3 });
    assert.ok(Date.now() - started >= 150);
  });
});
