// Pure pieces of the SMPP connector: receipt parsing and status mapping, flow control, reassembly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import smpp from 'smpp';
import {
  mapReceiptToStatus,
  parseReceiptText,
  receiptFromPdu,
  formatReceiptText,
} from '../../src/carriers/smpp/receipt.ts';
import { TokenBucket } from '../../src/carriers/smpp/window.ts';
import { Reassembler } from '../../src/carriers/smpp/concat.ts';
import { isTransientStatus, sourceAddress } from '../../src/carriers/smpp/pdu.ts';

test('mapReceiptToStatus maps states and the simulator err codes to delivery statuses', () => {
  assert.equal(mapReceiptToStatus('DELIVRD', '000'), 102);
  assert.equal(mapReceiptToStatus('EXPIRED'), 103);
  assert.equal(mapReceiptToStatus('DELETED', '000'), 104);
  assert.equal(mapReceiptToStatus('REJECTD', '000'), 108);
  assert.equal(mapReceiptToStatus('UNDELIV', '000'), 101);
  assert.equal(mapReceiptToStatus('UNKNOWN'), 999);
  assert.equal(mapReceiptToStatus('ACCEPTD'), -1);
  assert.equal(mapReceiptToStatus('ENROUTE', '000'), -1);
  assert.equal(mapReceiptToStatus('UNDELIV', '015'), 15);
  assert.equal(mapReceiptToStatus('UNDELIV', '747'), 747);
  assert.equal(mapReceiptToStatus('undeliv', '001'), 101, 'network-specific err codes do not leak through');
  assert.equal(mapReceiptToStatus('DELIVRD', '015'), 102, 'err never overrides a delivery');
  assert.equal(mapReceiptToStatus('BOGUS'), 999);
});

test('parseReceiptText reads the conventional receipt text, text: last', () => {
  const r = parseReceiptText(
    'id:ab12 sub:001 dlvrd:001 submit date:2501011200 done date:2501011201 stat:DELIVRD err:000 text:stat:x id:y',
  );
  assert.deepEqual(r, {
    id: 'ab12',
    sub: '001',
    dlvrd: '001',
    submitDate: '2501011200',
    doneDate: '2501011201',
    stat: 'DELIVRD',
    err: '000',
    text: 'stat:x id:y',
  });
  assert.equal(parseReceiptText('ID:7 Stat:undeliv Err:747').stat, 'UNDELIV');
});

test('receiptFromPdu prefers TLVs and takes err from the text', () => {
  const now = Date.UTC(2025, 0, 1, 12, 30);
  const body = formatReceiptText({
    id: 'X1',
    stat: 'UNDELIV',
    err: '015',
    submitAt: now - 600_000,
    doneAt: now - 300_000,
    text: 'hi',
  });
  const pdu = new smpp.PDU('deliver_sm', {
    esm_class: 4,
    short_message: Buffer.from(body),
    receipted_message_id: 'T1',
    message_state: 5,
  });
  const parsed = new smpp.PDU(pdu.toBuffer());
  assert.deepEqual(receiptFromPdu(parsed), { carrierMessageId: 'T1', state: 'UNDELIV', error: '015' });
  const textOnly = new smpp.PDU(
    new smpp.PDU('deliver_sm', { esm_class: 4, short_message: Buffer.from(body) }).toBuffer(),
  );
  assert.equal(receiptFromPdu(textOnly)?.carrierMessageId, 'X1');
});

test('a receipt with TLVs and no text takes its error from network_error_code', () => {
  for (const [code, status] of [
    [15, 15],
    [747, 747],
    [3, 101],
  ] as const) {
    const pdu = new smpp.PDU(
      new smpp.PDU('deliver_sm', {
        esm_class: 4,
        short_message: Buffer.alloc(0),
        receipted_message_id: `N${code}`,
        message_state: 5,
        network_error_code: Buffer.from([3, code >> 8, code & 0xff]),
      }).toBuffer(),
    );
    const receipt = receiptFromPdu(pdu);
    assert.equal(receipt?.error, String(code).padStart(3, '0'));
    assert.equal(mapReceiptToStatus(receipt!.state, receipt!.error), status, `network error ${code}`);
  }
});

test('TokenBucket holds the configured rate and slows down on throttling', async (t) => {
  // On a virtual clock (its timers and the bucket's clock advance together, 1 ms a step), so a loaded machine
  // cannot stretch the times measured.
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const bucket = new TokenBucket(200, () => Date.now());
  const take = async () => {
    let done = false;
    const taken = bucket.take().then(() => (done = true));
    await Promise.resolve();
    while (!done) {
      t.mock.timers.tick(1);
      await Promise.resolve();
    }
    await taken;
  };
  const started = Date.now();
  for (let i = 0; i < 50; i++) await take();
  const elapsed = Date.now() - started;
  assert.ok(elapsed >= 180 && elapsed < 600, `50 tokens at 200/s took ${elapsed} ms`);
  bucket.throttled(100);
  assert.equal(bucket.currentRate, 100);
  const t0 = Date.now();
  await take();
  assert.ok(Date.now() - t0 >= 95, 'paused after a throttle answer');
  for (let i = 0; i < 60; i++) bucket.succeeded();
  assert.equal(bucket.currentRate, 200, 'recovers to the configured rate');
});

test('Reassembler completes groups in sequence order and keeps them until forgotten', () => {
  const r = new Reassembler<string>();
  assert.equal(r.add('k', 3, 2, 'b'), undefined);
  assert.equal(r.add('k', 3, 3, 'c'), undefined);
  const done = r.add('k', 3, 1, 'a');
  assert.deepEqual(done?.parts, ['a', 'b', 'c']);
  assert.deepEqual(r.add('k', 3, 3, 'c')?.parts, ['a', 'b', 'c'], 'a redelivered part completes it again');
  r.forget('k');
  assert.equal(r.pending, 0);
});

test('status classes and source addressing', () => {
  assert.equal(isTransientStatus(0x58), true);
  assert.equal(isTransientStatus(0x14), true);
  assert.equal(isTransientStatus(0x08), true);
  assert.equal(isTransientStatus(0x0b), false);
  assert.equal(isTransientStatus(0x0a), false);
  assert.deepEqual(sourceAddress('Yona'), { source_addr_ton: 5, source_addr_npi: 0, source_addr: 'Yona' });
  assert.deepEqual(sourceAddress('+972501234567'), {
    source_addr_ton: 1,
    source_addr_npi: 1,
    source_addr: '972501234567',
  });
});
