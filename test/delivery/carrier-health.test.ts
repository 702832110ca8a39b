// The health bookkeeping of carriers on a virtual clock: the recent submit rate, messages held for a permit
// and the oldest of them, the last error (the carrier's or a refused submit's, whichever is later), and the
// incident lines: carrier.down and carrier.throttled once per episode past the grace time, then carrier.up and
// carrier.unthrottled.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Carrier, CarrierCondition } from '../../src/carriers/types.ts';
import { CarrierHealthBook, type CarrierHealth } from '../../src/delivery/carrier-health.ts';
import { CarrierIncidents } from '../../src/delivery/carrier-incidents.ts';

function fakeCarrier(name: string, condition: () => CarrierCondition): Carrier {
  return {
    name,
    protocol: 'smpp',
    inFlightLimit: 10,
    start: async () => {},
    submit: async () => ({ ok: true, carrierMessageIds: [] }),
    onReceipt() {},
    onInbound() {},
    onLateAccept() {},
    canSubmit: () => condition().bindsUp > 0,
    condition,
    stop: async () => {},
  };
}

const up: CarrierCondition = {
  bindsUp: 2,
  bindsHeld: 2,
  bindsWanted: 2,
  windowInUse: 3,
  windowSize: 20,
  graceMs: 5000,
};

describe('carrier health book', () => {
  it('counts submits answered over the last 10 s as a rate, and totals by outcome', () => {
    let now = 1_000_000;
    const book = new CarrierHealthBook(() => now);
    const carrier = fakeCarrier('a', () => up);
    for (let i = 0; i < 100; i++) {
      book.answered('a', { ok: true, carrierMessageIds: ['x'] });
      now += 100; // 10 a second for 10 s
    }
    book.answered('a', { ok: false, transient: true, error: 'submit_sm timeout' });
    const r = book.report(carrier);
    assert.equal(r.submitsAccepted, 100);
    assert.equal(r.submitsRefused, 1);
    assert.ok(r.submitsPerSecond >= 9 && r.submitsPerSecond <= 11, String(r.submitsPerSecond));
    assert.deepEqual(r.lastError, { text: 'submit_sm timeout', at: now });
    now += 30_000; // nothing answered for 30 s
    assert.equal(book.report(carrier).submitsPerSecond, 0);
    assert.equal(book.report(carrier).submitsAccepted, 100, 'totals stay');
  });

  it('holds messages waiting for a permit and tells when the oldest was accepted', () => {
    const book = new CarrierHealthBook(() => 50_000);
    const carrier = fakeCarrier('a', () => up);
    book.holding('a', 1, 40_000);
    book.holding('a', 2, 10_000); // a retried message, accepted long ago, enters later
    book.holding('a', 3, 45_000);
    let r = book.report(carrier);
    assert.equal(r.held, 3);
    assert.equal(r.heldOldestAcceptedAt, 10_000);
    book.handedOver('a', 2);
    r = book.report(carrier);
    assert.equal(r.held, 2);
    assert.equal(r.heldOldestAcceptedAt, 40_000);
    book.handedOver('a', 1);
    book.handedOver('a', 3);
    assert.equal(book.report(carrier).held, 0);
    assert.equal(book.report(carrier).heldOldestAcceptedAt, undefined);
  });

  it("takes the carrier's own figures and the later of its last error and a refused submit's", () => {
    let now = 100_000;
    let condition: CarrierCondition = { ...up, lastError: { text: 'connection closed', at: 90_000 } };
    const book = new CarrierHealthBook(() => now);
    const carrier = fakeCarrier('a', () => condition);
    book.answered('a', { ok: false, transient: true, error: 'ESME_RSYSERR', elsewhere: true });
    let r = book.report(carrier);
    assert.equal(r.lastError?.text, 'ESME_RSYSERR');
    assert.deepEqual([r.bindsUp, r.bindsWanted, r.windowInUse, r.windowSize], [2, 2, 3, 20]);
    now = 120_000;
    condition = { ...up, bindsUp: 0, downSince: 110_000, lastError: { text: 'connection closed', at: 110_000 } };
    r = book.report(carrier);
    assert.equal(r.lastError?.text, 'connection closed');
    assert.equal(r.down, true);
    assert.equal(r.canSubmit, false);
  });
});

describe('carrier incidents', () => {
  const report = (over: Partial<CarrierHealth>): CarrierHealth => ({
    carrier: 'a',
    protocol: 'smpp',
    channel: 'sms',
    canSubmit: true,
    bindsUp: 1,
    bindsHeld: 1,
    bindsWanted: 1,
    submitsPerSecond: 0,
    submitsAccepted: 0,
    submitsRefused: 0,
    windowInUse: 0,
    windowSize: 10,
    throttled: false,
    paced: false,
    down: false,
    graceMs: 5000,
    held: 0,
    ...over,
  });
  const recorder = () => {
    const lines: Array<{ level: string; event: unknown; fields: Record<string, unknown> }> = [];
    const log = (level: string) => (fields: Record<string, unknown>) =>
      lines.push({ level, event: fields.event, fields });
    return { lines, logger: { warn: log('warn'), info: log('info') } as never };
  };

  it('logs carrier.down once past the grace time, and carrier.up when it binds again', () => {
    let now = 0;
    const { lines, logger } = recorder();
    const incidents = new CarrierIncidents(logger, () => now);
    const down = report({ bindsUp: 0, down: true, downSince: 0, lastError: { text: 'connection closed', at: 0 } });
    for (now = 0; now < 4000; now += 1000) incidents.check([down]);
    assert.equal(lines.length, 0, 'within the grace time');
    for (now = 5000; now < 9000; now += 1000) incidents.check([down]);
    assert.deepEqual(
      lines.map((l) => [l.level, l.event]),
      [['warn', 'carrier.down']],
    );
    assert.equal(lines[0].fields.down_ms, 5000);
    assert.equal(lines[0].fields.last_error, 'connection closed');
    incidents.check([report({})]);
    assert.deepEqual(lines[1].event, 'carrier.up');
    assert.equal(lines[1].fields.down_ms, 9000);
    // A new episode is a new line.
    for (now = 20_000; now <= 26_000; now += 1000) incidents.check([report({ down: true, downSince: 20_000 })]);
    assert.deepEqual(
      lines.map((l) => l.event),
      ['carrier.down', 'carrier.up', 'carrier.down'],
    );
  });

  it('logs carrier.throttled once past the grace time and carrier.unthrottled when it ends', () => {
    let now = 0;
    const { lines, logger } = recorder();
    const incidents = new CarrierIncidents(logger, () => now);
    const throttled = report({ throttled: true, throttledSince: 1000 });
    for (now = 1000; now <= 10_000; now += 500) incidents.check([throttled]);
    assert.deepEqual(
      lines.map((l) => [l.level, l.event]),
      [['warn', 'carrier.throttled']],
    );
    assert.equal(lines[0].fields.throttled_ms, 5000);
    incidents.check([report({})]);
    assert.deepEqual(lines[1].event, 'carrier.unthrottled');
    // A short episode is not an incident.
    now = 20_000;
    incidents.check([report({ throttled: true, throttledSince: 19_000 })]);
    incidents.check([report({})]);
    assert.equal(lines.length, 2);
  });
});
