// The dispatcher's choice of a carrier as a pure decision: weights, daily caps, carriers down, throttled backlogs,
// failover to the next carrier of the route, and nothing routable, each over a snapshot written out here.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SubmitResult } from '../../src/carriers/types.ts';
import {
  CAPPED_WAIT_MS,
  type CarrierView,
  type ChoiceSnapshot,
  chooseCarrier,
  type TriedCarrier,
} from '../../src/delivery/carrier-choice.ts';
import { DELIVERY } from '../../src/domain/status.ts';

const NOW = 1_700_000_000_000;
const policy = { throttleBacklog: 100, maxAttempts: 5, retryBaseMs: 1000, retryMaxMs: 300_000 };

function carrier(name: string, over: Partial<CarrierView> = {}): CarrierView {
  return { name, up: true, usedToday: 0, throttled: false, waiting: 0, ...over };
}

function snapshot(route: CarrierView[], over: Partial<ChoiceSnapshot> = {}): ChoiceSnapshot {
  return { route, key: 1, parts: 1, call: false, attempts: 1, now: NOW, policy, tried: [], ...over };
}

const accepted: SubmitResult = { ok: true, carrierMessageIds: ['c-1'] };
const busy: SubmitResult = { ok: false, transient: true, error: 'ESME_RSYSERR (0x08)', elsewhere: true };
const badNumber: SubmitResult = { ok: false, transient: false, error: 'ESME_RINVDSTADR (0x0b)', status: 1 };

test('a route of one carrier: submit to it, then accepted', () => {
  const route = [carrier('a')];
  assert.deepEqual(chooseCarrier(snapshot(route)), { kind: 'submit', carrier: 'a' });
  assert.deepEqual(chooseCarrier(snapshot(route, { tried: [{ carrier: 'a', result: accepted }] })), {
    kind: 'accepted',
    carrier: 'a',
  });
});

test('nothing routable: failed with the wording of its channel', () => {
  assert.deepEqual(chooseCarrier(snapshot([])), {
    kind: 'fail',
    carrier: null,
    status: DELIVERY.FAILED,
    error: 'no carrier routes this destination',
  });
  assert.deepEqual(chooseCarrier(snapshot([], { call: true })), {
    kind: 'fail',
    carrier: null,
    status: DELIVERY.FAILED,
    error: 'no voice trunk routes this destination',
  });
});

test('weights 3:1 spread consecutive messages 3 to 1, and a message always starts on the same carrier', () => {
  const route = [carrier('a', { weight: 3 }), carrier('b', { weight: 1 })];
  const first = (key: number) => {
    const d = chooseCarrier(snapshot(route, { key }));
    return d.kind === 'submit' ? d.carrier : d.kind;
  };
  const counts = { a: 0, b: 0 } as Record<string, number>;
  for (let key = 1; key <= 1000; key++) counts[first(key)]++;
  assert.ok(Math.abs(counts.a - 750) <= 10 && Math.abs(counts.b - 250) <= 10, JSON.stringify(counts));
  assert.equal(first(77), first(77));
  // Unweighted carriers are only taken after the weighted ones: never first.
  const backup = [carrier('a', { weight: 1 }), carrier('b', { weight: 1 }), carrier('c')];
  for (let key = 1; key <= 50; key++)
    assert.notEqual((chooseCarrier(snapshot(backup, { key })) as { carrier: string }).carrier, 'c');
});

test('an unhealthy carrier is passed over for a bound one, and counted as diverted', () => {
  const route = [carrier('a', { up: false }), carrier('b')];
  assert.deepEqual(chooseCarrier(snapshot(route)), { kind: 'submit', carrier: 'b', diverted: 'a' });
  // A weighted route: the carrier the message falls on is the one diverted from.
  const weighted = [carrier('a', { weight: 1 }), carrier('b', { weight: 1 })];
  const key = [...Array(20).keys()].find(
    (k) => (chooseCarrier(snapshot(weighted, { key: k })) as { carrier: string }).carrier === 'b',
  ) as number;
  weighted[1] = carrier('b', { weight: 1, up: false });
  assert.deepEqual(chooseCarrier(snapshot(weighted, { key })), { kind: 'submit', carrier: 'a', diverted: 'b' });
});

test('every carrier down: the route is tried in its own order, none diverted', () => {
  const route = [carrier('a', { up: false }), carrier('b', { up: false })];
  assert.deepEqual(chooseCarrier(snapshot(route)), { kind: 'submit', carrier: 'a' });
});

test('a refusal of its own hands the message to the next carrier; the last refusal retries with backoff', () => {
  const route = [carrier('a'), carrier('b')];
  const afterA: TriedCarrier[] = [{ carrier: 'a', result: busy }];
  assert.deepEqual(chooseCarrier(snapshot(route, { tried: afterA })), { kind: 'submit', carrier: 'b' });
  const afterB: TriedCarrier[] = [...afterA, { carrier: 'b', result: { ...busy, error: 'queue' } }];
  assert.deepEqual(chooseCarrier(snapshot(route, { tried: afterB, attempts: 3 })), {
    kind: 'retry',
    carrier: 'b',
    at: NOW + 4000,
    error: 'queue (before: a: ESME_RSYSERR (0x08))',
  });
  // Out of attempts: failed.
  assert.deepEqual(chooseCarrier(snapshot(route, { tried: afterB, attempts: 5 })), {
    kind: 'fail',
    carrier: 'b',
    status: DELIVERY.FAILED,
    error: 'gave up after 5 attempts: queue (before: a: ESME_RSYSERR (0x08))',
  });
});

test('a permanent refusal, or a transient one the carrier holds part of, stays with that carrier', () => {
  const route = [carrier('a'), carrier('b')];
  assert.deepEqual(chooseCarrier(snapshot(route, { tried: [{ carrier: 'a', result: badNumber }] })), {
    kind: 'fail',
    carrier: 'a',
    status: 1,
    error: 'ESME_RINVDSTADR (0x0b)',
  });
  const partTaken: SubmitResult = { ok: false, transient: true, error: 'timeout (1/2 parts failed)' };
  assert.deepEqual(chooseCarrier(snapshot(route, { tried: [{ carrier: 'a', result: partTaken }] })), {
    kind: 'retry',
    carrier: 'a',
    at: NOW + 1000,
    error: 'timeout (1/2 parts failed)',
  });
});

test('daily caps: a carrier the parts do not fit under is passed over; all capped waits without an attempt', () => {
  const route = [carrier('a', { dailyCap: 10, usedToday: 9 }), carrier('b', { dailyCap: 10, usedToday: 0 })];
  assert.deepEqual(chooseCarrier(snapshot(route)), { kind: 'submit', carrier: 'a' });
  assert.deepEqual(chooseCarrier(snapshot(route, { parts: 2 })), { kind: 'submit', carrier: 'b', skipped: ['a'] });
  const full = [carrier('a', { dailyCap: 10, usedToday: 10 }), carrier('b', { dailyCap: 5, usedToday: 5 })];
  assert.deepEqual(chooseCarrier(snapshot(full)), {
    kind: 'retry',
    carrier: null,
    at: NOW + CAPPED_WAIT_MS,
    error: 'every carrier of its route has reached its daily cap',
    uncounted: true,
  });
  // The next carrier is capped: the refusal stays with the carrier that refused (retried later, counted).
  const afterA: TriedCarrier[] = [{ carrier: 'a', result: busy }];
  const capped = [carrier('a'), carrier('b', { dailyCap: 5, usedToday: 5 })];
  assert.deepEqual(chooseCarrier(snapshot(capped, { tried: afterA })), {
    kind: 'retry',
    carrier: 'a',
    at: NOW + 1000,
    error: 'ESME_RSYSERR (0x08)',
  });
});

test('a throttled carrier with a backlog is passed over for a ready one, and taken when none is', () => {
  const jammed = carrier('a', { throttled: true, waiting: 100 });
  assert.deepEqual(chooseCarrier(snapshot([jammed, carrier('b')])), { kind: 'submit', carrier: 'b', skipped: ['a'] });
  // Throttled with a short line, or a backlog without throttling: not passed over.
  assert.equal(
    (chooseCarrier(snapshot([carrier('a', { throttled: true, waiting: 99 }), carrier('b')])) as { carrier: string })
      .carrier,
    'a',
  );
  assert.equal(
    (chooseCarrier(snapshot([carrier('a', { waiting: 500 }), carrier('b')])) as { carrier: string }).carrier,
    'a',
  );
  // The only other carrier is capped: the backlogged one keeps the message.
  assert.deepEqual(chooseCarrier(snapshot([jammed, carrier('b', { dailyCap: 1, usedToday: 1 })])), {
    kind: 'submit',
    carrier: 'a',
  });
});

test('carriers already considered on the walk are not tried again', () => {
  const route = [carrier('a'), carrier('b'), carrier('c')];
  const tried: TriedCarrier[] = [{ carrier: 'a' }, { carrier: 'b', result: busy }];
  assert.deepEqual(chooseCarrier(snapshot(route, { tried })), { kind: 'submit', carrier: 'c' });
});
