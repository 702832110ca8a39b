// RFC 3261 client transactions over a recording transport: an INVITE resent on timer A until a response;
// a non-2xx final response acknowledged on the INVITE's branch, and its retransmission absorbed (the ACK sent
// again, the user not told twice); each copy of a 2xx handed to the user; a response matched by branch, CSeq
// number and method only; a non-INVITE request given up on timer F.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSip, type SipMessage } from '../../src/carriers/sip/message.ts';
import { ClientTransactions } from '../../src/carriers/sip/transaction.ts';
import type { SipTransport } from '../../src/carriers/sip/transport.ts';

const TIMERS = { T1: 20, T2: 160, T4: 200 };

function recorder(): SipTransport & { sent: string[] } {
  const sent: string[] = [];
  return {
    kind: 'udp',
    reliable: false,
    sent,
    localPort: () => 5060,
    send: (text) => void sent.push(text),
    onMessage() {},
    close: async () => {},
  };
}

const response = (status: number, branch: string, cseq: string): SipMessage =>
  parseSip(`SIP/2.0 ${status} X\r\nVia: SIP/2.0/UDP 127.0.0.1:5060;branch=${branch}\r\nCSeq: ${cseq}\r\n\r\n`)!;
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('SIP client transactions', () => {
  it('resends the INVITE on timer A until a response, then absorbs a retransmitted 401 with the same ACK', async () => {
    const transport = recorder();
    const layer = new ClientTransactions(transport, TIMERS);
    const seen: number[] = [];
    layer.start(
      { method: 'INVITE', branch: 'z9hG4bKa', seq: 1, text: 'INVITE' },
      { response: (m) => void seen.push(m.status!), timeout: () => seen.push(-1) },
      () => 'ACK z9hG4bKa',
    );
    await wait(70); // sent at 0, 20, 60 (later on a loaded machine)
    const invites = transport.sent.length;
    assert.ok(invites >= 2, `${invites} INVITEs`);
    assert.ok(transport.sent.every((t) => t === 'INVITE'));
    assert.equal(layer.receive(response(401, 'z9hG4bKa', '1 INVITE')), true);
    assert.equal(layer.receive(response(401, 'z9hG4bKa', '1 INVITE')), true);
    await wait(100);
    assert.deepEqual(seen, [401], 'the user saw the challenge once');
    assert.deepEqual(
      transport.sent.slice(invites),
      ['ACK z9hG4bKa', 'ACK z9hG4bKa'],
      'each copy acknowledged, no more INVITEs',
    );
    assert.equal(layer.receive(response(401, 'z9hG4bKb', '1 INVITE')), false, 'another branch is not this transaction');
    assert.equal(layer.receive(response(401, 'z9hG4bKa', '2 INVITE')), false, 'nor another CSeq number');
    layer.close();
  });

  it('hands every copy of a 2xx to the user, which acknowledges each', async () => {
    const transport = recorder();
    const layer = new ClientTransactions(transport, TIMERS);
    const seen: number[] = [];
    layer.start(
      { method: 'INVITE', branch: 'z9hG4bKc', seq: 1, text: 'INVITE' },
      { response: (m) => void seen.push(m.status!), timeout: () => seen.push(-1) },
      () => 'ACK',
    );
    layer.receive(response(180, 'z9hG4bKc', '1 INVITE'));
    layer.receive(response(200, 'z9hG4bKc', '1 INVITE'));
    layer.receive(response(200, 'z9hG4bKc', '1 INVITE'));
    assert.deepEqual(seen, [180, 200, 200]);
    assert.deepEqual(transport.sent, ['INVITE'], 'the transaction sends no ACK of a 2xx: that is the call');
    layer.close();
  });

  it('gives a non-INVITE request up on timer F, resending it on timer E capped at T2', async () => {
    const transport = recorder();
    const layer = new ClientTransactions(transport, TIMERS);
    let timedOut = false;
    layer.start(
      { method: 'BYE', branch: 'z9hG4bKd', seq: 2, text: 'BYE' },
      { response() {}, timeout: () => (timedOut = true) },
    );
    await wait(64 * TIMERS.T1 + 100);
    assert.equal(timedOut, true);
    // 0, 20, 60, 140, 300, 460, 620, 780, 940, 1100, 1260: doubling to T2 (160), then every T2, until 64 x T1.
    assert.ok(transport.sent.length >= 9 && transport.sent.length <= 12, `${transport.sent.length} sends`);
    layer.close();
  });
});
