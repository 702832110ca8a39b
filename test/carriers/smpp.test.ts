// SmppCarrier against the bundled SmscSimulator over real TCP on 127.0.0.1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pair, sms, waitFor } from './helpers.ts';

const HEBREW = 'שלום, זו הודעה ארוכה בעברית שנשלחת דרך הסימולטור כדי לבדוק פיצול לחלקים ב-UCS-2 והרכבה מחדש. ';

test('single and long GSM and long Hebrew messages arrive decoded, long ones as concatenated parts', async () => {
  const p = await pair();
  try {
    const short = await p.carrier.submit(sms('972501110031', 'Hello from Yona {€}'));
    assert.equal(short.ok, true);
    const longGsm = 'A fairly long GSM-7 message with [brackets] and ~tildes~. '.repeat(7);
    const long = await p.carrier.submit(sms('972501110032', longGsm));
    assert.ok(long.ok && long.carrierMessageIds.length === 3, JSON.stringify(long));
    const hebrew = HEBREW.repeat(2);
    const heb = await p.carrier.submit(sms('972501110033', hebrew));
    assert.ok(heb.ok && heb.carrierMessageIds.length === Math.ceil(hebrew.length / 67), JSON.stringify(heb));

    const [m1] = p.simulator.messages({ to: '972501110031' });
    assert.deepEqual([m1.text, m1.parts, m1.dataCoding, m1.source], ['Hello from Yona {€}', 1, 0, 'Yona']);
    const [m2] = p.simulator.messages({ to: '972501110032' });
    assert.deepEqual([m2.text, m2.parts, m2.dataCoding], [longGsm, 3, 0]);
    assert.deepEqual(m2.messageIds, long.carrierMessageIds);
    const [m3] = p.simulator.messages({ to: '+972501110033' });
    assert.deepEqual([m3.text, m3.parts, m3.dataCoding], [hebrew, heb.ok ? heb.carrierMessageIds.length : -1, 8]);
    // One receipt per part, all delivered.
    await waitFor(() => p.receipts.length === 1 + 3 + m3.parts, 2000, 'receipts for every part');
    assert.ok(p.receipts.every((r) => r.status === 102));
  } finally {
    await p.close();
  }
});

test('each simulator outcome produces its receipt and mapped status; 0002 produces none', async () => {
  const p = await pair({ receiptDelayMs: 10 });
  try {
    const expected: Record<string, number> = {
      '0015': 15,
      '0101': 101,
      '0103': 103,
      '0108': 108,
      '0747': 747,
      '1234': 102,
    };
    const ids = new Map<string, string>();
    for (const suffix of [...Object.keys(expected), '0002']) {
      const result = await p.carrier.submit(sms(`97250111${suffix}`, `outcome ${suffix}`));
      assert.ok(result.ok);
      ids.set(result.carrierMessageIds[0], suffix);
    }
    await waitFor(() => p.receipts.length >= 6, 2000, 'six receipts');
    await new Promise((r) => setTimeout(r, 100)); // room for a (wrong) receipt for 0002
    assert.equal(p.receipts.length, 6);
    const got: Record<string, number> = {};
    for (const r of p.receipts) got[ids.get(r.carrierMessageId)!] = r.status;
    assert.deepEqual(got, expected);
  } finally {
    await p.close();
  }
});

test('inbound MO (short GSM and long Hebrew) reaches onInbound, in tx+rx mode too', async () => {
  for (const bindMode of ['transceiver', 'tx+rx'] as const) {
    const p = await pair({}, { bindMode });
    try {
      const a = await p.simulator.sendInbound({ from: '972509990000', to: '5550', text: 'STOP' });
      const b = await p.simulator.sendInbound({ from: '+972509990001', to: '5550', text: HEBREW.repeat(2) });
      assert.deepEqual([a, b.delivered, b.parts > 1], [{ parts: 1, delivered: true }, true, true]);
      // A long message reaches onInbound as its parts, in order, each with its UDH numbering (the receiver
      // stores them and assembles the message).
      await waitFor(() => p.inbound.length === 1 + b.parts, 2000, 'the short message and every part');
      assert.deepEqual(p.inbound[0], { from: '972509990000', to: '5550', text: 'STOP', at: p.inbound[0].at });
      const parts = p.inbound.slice(1);
      assert.ok(
        parts.every((m) => m.from === '972509990001' && m.part?.total === b.parts && m.part.ref === parts[0].part?.ref),
      );
      assert.deepEqual(
        parts.map((m) => m.part?.seq),
        Array.from({ length: b.parts }, (_, i) => i + 1),
      );
      assert.equal(parts.map((m) => m.text).join(''), HEBREW.repeat(2));
      const r = await p.carrier.submit(sms('972501110009', `receipt over ${bindMode}`));
      assert.ok(r.ok);
      await waitFor(() => p.receipts.some((x) => x.carrierMessageId === r.carrierMessageIds[0]), 2000, 'receipt');
    } finally {
      await p.close();
    }
  }
});

test('permanent and transient command statuses are classified', async () => {
  const p = await pair();
  try {
    assert.deepEqual(await p.carrier.submit(sms('not-a-number', 'x')), {
      ok: false,
      transient: false,
      error: 'ESME_RINVDSTADR (0x0b)',
      commandStatus: 0x0b,
      status: 1,
    });
    p.simulator.failNext(1, 0x0a);
    const src = await p.carrier.submit(sms('972501110010', 'x'));
    assert.deepEqual([src.ok, !src.ok && src.transient, !src.ok && src.commandStatus], [false, false, 0x0a]);
    p.simulator.failNext(1, 0x08);
    const sys = await p.carrier.submit(sms('972501110011', 'x'));
    assert.deepEqual([sys.ok, !sys.ok && sys.transient], [false, true]);
    assert.equal((await p.carrier.submit(sms('972501110012', 'x'))).ok, true);
  } finally {
    await p.close();
  }
});

test('throttling is survived: every message is eventually accepted', async () => {
  const p = await pair({}, { maxSubmitsPerSecond: 500, throttlePauseMs: 50 });
  try {
    p.simulator.throttle(true);
    setTimeout(() => p.simulator.throttle(false), 300);
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => p.carrier.submit(sms(`9725022${String(i).padStart(5, '0')}`, `m${i}`))),
    );
    assert.ok(
      results.every((r) => r.ok),
      JSON.stringify(results.filter((r) => !r.ok)),
    );
    const stats = p.simulator.stats();
    assert.ok(stats.throttled > 0, 'the simulator did throttle');
    assert.equal(stats.messagesReceived, 40);
    assert.equal(stats.duplicates, 0);
  } finally {
    await p.close();
  }
});

test('ESME_RMSGQFUL is retried after a pause like throttling', async () => {
  const p = await pair({}, { throttlePauseMs: 20 });
  try {
    p.simulator.failNext(3, 0x14);
    const r = await p.carrier.submit(sms('972501110020', 'queue full then ok'));
    assert.equal(r.ok, true);
    assert.equal(p.simulator.stats().failedOnPurpose, 3);
  } finally {
    await p.close();
  }
});

test('disconnectAll mid-stream: in-window submits fail transiently, the carrier reconnects and continues', async () => {
  const p = await pair({}, { windowSize: 20 });
  try {
    p.simulator.setSubmitResponseDelay(500);
    const inWindow = Array.from({ length: 5 }, (_, i) => p.carrier.submit(sms(`97250333000${i}`, `w${i}`)));
    await waitFor(() => p.simulator.stats().submitsReceived === 5, 2000, 'submits in the window');
    p.simulator.disconnectAll();
    const results = await Promise.all(inWindow);
    for (const r of results)
      assert.deepEqual([r.ok, !r.ok && r.transient, !r.ok && r.error], [false, true, 'submit_sm disconnected']);
    p.simulator.setSubmitResponseDelay(0);
    const after = await p.carrier.submit(sms('972503330009', 'after reconnect'));
    assert.equal(after.ok, true);
    assert.equal(p.simulator.stats().binds, 2);
    assert.deepEqual(p.carrier.stats().bound, 1);
  } finally {
    await p.close();
  }
});

test('window limit is respected per session and submits wait for room', async () => {
  const p = await pair({}, { windowSize: 4, binds: 2 });
  try {
    p.simulator.setSubmitResponseDelay(30);
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => p.carrier.submit(sms(`9725044${String(i).padStart(5, '0')}`, `n${i}`))),
    );
    assert.ok(results.every((r) => r.ok));
    assert.equal(p.simulator.stats().maxInFlight, 4, 'the window was filled but never exceeded');
    assert.equal(p.simulator.stats().binds, 2);
  } finally {
    await p.close();
  }
});

test('maxSubmitsPerSecond paces submits', async () => {
  const p = await pair({}, { maxSubmitsPerSecond: 100 });
  try {
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => p.carrier.submit(sms(`9725055${String(i).padStart(5, '0')}`, 'r'))),
    );
    const elapsed = Date.now() - started;
    assert.ok(results.every((r) => r.ok));
    assert.ok(elapsed >= 220 && elapsed < 1500, `30 submits at 100/s took ${elapsed} ms`);
  } finally {
    await p.close();
  }
});

test('a wrong password never binds: start returns, submits fail transiently after queueTimeoutMs', async () => {
  const p = await pair({}, { password: 'wrong', responseTimeoutMs: 100, queueTimeoutMs: 150 });
  try {
    assert.equal(p.carrier.stats().bound, 0);
    const r = await p.carrier.submit(sms('972501110030', 'x'));
    assert.deepEqual([r.ok, !r.ok && r.transient], [false, true]);
    assert.equal(p.simulator.stats().submitsReceived, 0);
  } finally {
    await p.close();
  }
});

test('a long message sent again after a part failed keeps its UDH reference: the handset completes it from the parts it holds', async () => {
  const p = await pair();
  try {
    const text = 'A long message whose second attempt must reuse the concatenation reference of the first one. '.repeat(
      3,
    );
    p.simulator.failNext(1, 0x08);
    const first = await p.carrier.submit(sms('972501110077', text, 4242));
    assert.ok(!first.ok && first.transient, JSON.stringify(first));
    assert.deepEqual(p.simulator.messages({ to: '972501110077' }), [], 'incomplete: nothing shown yet');
    const second = await p.carrier.submit(sms('972501110077', text, 4242));
    assert.ok(second.ok && second.carrierMessageIds.length === 2, JSON.stringify(second));
    const shown = p.simulator.messages({ to: '972501110077' });
    assert.equal(shown.length, 1);
    assert.equal(shown[0].text, text);
    // The part that got through the first time completed the message: it was reassembled under the same reference.
    assert.notDeepEqual(shown[0].messageIds, second.carrierMessageIds);
  } finally {
    await p.close();
  }
});
