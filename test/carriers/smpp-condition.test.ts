// How an SMPP carrier reports itself for health (condition()): binds up, held and wanted; its windows; a node
// holding none of its binds stands by and is not down; a lost connection is down with its last error; an SMSC
// pushing back is a throttle episode that ends once submits go through at the full rate.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pair, sms, waitFor } from './helpers.ts';

test('binds up and held, windows, standing by, down with the last error', async () => {
  const p = await pair({}, { binds: 2, windowSize: 7 });
  try {
    await waitFor(() => p.carrier.condition().bindsUp === 2, 3000, 'both binds up');
    let c = p.carrier.condition();
    assert.deepEqual([c.bindsUp, c.bindsHeld, c.bindsWanted, c.windowInUse, c.windowSize], [2, 2, 2, 0, 14]);
    assert.equal(c.downSince, undefined);
    assert.equal(c.throttledSince, undefined);

    await p.carrier.useShares([]); // other nodes hold both binds
    c = p.carrier.condition();
    assert.deepEqual([c.bindsUp, c.bindsHeld, c.bindsWanted], [0, 0, 2]);
    assert.equal(c.downSince, undefined, 'standing by is not down');

    await p.carrier.useShares([1]);
    await waitFor(() => p.carrier.condition().bindsUp === 1, 3000, 'bind #1 up');
    assert.equal(p.carrier.condition().windowSize, 7);

    const before = Date.now();
    await p.simulator.stop();
    await waitFor(() => p.carrier.condition().bindsUp === 0, 3000, 'no bind up');
    c = p.carrier.condition();
    assert.ok((c.downSince ?? 0) >= before, `down since ${c.downSince}`);
    assert.ok((c.lastError?.at ?? 0) >= before);
    assert.match(c.lastError?.text ?? '', /connection (closed|error)/);
  } finally {
    await p.carrier.stop();
  }
});

test('an SMSC pushing back is a throttle episode, ended by a submit at the full rate', async () => {
  const p = await pair({}, { throttlePauseMs: 50 });
  try {
    p.simulator.throttle(true);
    const sending = p.carrier.submit(sms('972506600001', 'throttled'));
    await waitFor(() => p.carrier.condition().throttledSince !== undefined, 2000, 'throttled');
    assert.match(p.carrier.condition().lastError?.text ?? '', /THROTTLED/);
    p.simulator.throttle(false);
    assert.equal((await sending).ok, true);
    assert.equal(p.carrier.condition().throttledSince, undefined, 'the episode ended with the accepted submit');
  } finally {
    await p.close();
  }
});
