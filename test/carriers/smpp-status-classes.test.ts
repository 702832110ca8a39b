// How the SMPP connector classes each submit_sm_resp command_status it knows, one row per code: resent after a
// pause (the SMSC pushes back), handed to the next carrier of the route or retried later (transient, the carrier
// holds no copy), failed (permanent), or failed as an illegal message (the content itself is refused). The
// dispatcher acts on these classes, so changing any row changes which messages are retried, moved or refunded.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { STATUS } from '../../src/carriers/smpp/pdu.ts';
import type { SubmitResult } from '../../src/carriers/types.ts';
import { DELIVERY } from '../../src/domain/status.ts';
import { pair, sms } from './helpers.ts';

type StatusClass = 'accepted' | 'resent after a pause' | 'next carrier or retry' | 'fail' | 'fail: illegal message';

// Every command_status the connector names (pdu.ts STATUS, connector.ts's malformed-message codes), and one it
// does not know (anything unnamed fails the message).
const ROWS: Array<[code: number, name: string, expected: StatusClass]> = [
  [STATUS.OK, 'ESME_ROK', 'accepted'],
  [STATUS.INVMSGLEN, 'ESME_RINVMSGLEN', 'fail: illegal message'],
  [STATUS.INVBNDSTS, 'ESME_RINVBNDSTS', 'next carrier or retry'],
  [STATUS.ALYBND, 'ESME_RALYBND', 'fail'],
  [STATUS.SYSERR, 'ESME_RSYSERR', 'next carrier or retry'],
  [STATUS.INVSRCADR, 'ESME_RINVSRCADR', 'fail'],
  [STATUS.INVDSTADR, 'ESME_RINVDSTADR', 'fail'],
  [STATUS.BINDFAIL, 'ESME_RBINDFAIL', 'fail'],
  [STATUS.INVPASWD, 'ESME_RINVPASWD', 'fail'],
  [STATUS.INVSYSID, 'ESME_RINVSYSID', 'fail'],
  [STATUS.MSGQFUL, 'ESME_RMSGQFUL', 'resent after a pause'],
  [STATUS.SUBMITFAIL, 'ESME_RSUBMITFAIL', 'next carrier or retry'],
  [STATUS.THROTTLED, 'ESME_RTHROTTLED', 'resent after a pause'],
  [STATUS.X_T_APPN, 'ESME_RX_T_APPN', 'next carrier or retry'],
  [STATUS.DELIVERYFAILURE, 'ESME_RDELIVERYFAILURE', 'next carrier or retry'],
  [STATUS.UNKNOWNERR, 'ESME_RUNKNOWNERR', 'next carrier or retry'],
  [0x104, 'invalid data coding (SMPP 5.0)', 'fail: illegal message'],
  [0x61, 'ESME_RINVSCHED (not named by the connector)', 'fail'],
];

// The class of one submit answered `code` once: a push-back is resent (and then accepted); a refusal is read from
// the result the dispatcher sees.
function classOf(result: SubmitResult, resent: boolean): StatusClass {
  if (result.ok) return resent ? 'resent after a pause' : 'accepted';
  if (result.transient) return result.elsewhere === true ? 'next carrier or retry' : 'fail';
  return result.status === DELIVERY.ILLEGAL_MESSAGE ? 'fail: illegal message' : 'fail';
}

test('every command_status the connector names has a row', () => {
  const rows = new Set(ROWS.map(([code]) => code));
  assert.deepEqual(
    Object.entries(STATUS).filter(([, code]) => !rows.has(code)),
    [],
  );
});

let p: Awaited<ReturnType<typeof pair>>;
before(async () => {
  p = await pair({}, { throttlePauseMs: 10 });
});
after(() => p.close());

for (const [i, [code, name, expected]] of ROWS.entries()) {
  test(`command_status 0x${code.toString(16).padStart(2, '0')} ${name}: ${expected}`, async () => {
    const failedBefore = p.simulator.stats().failedOnPurpose;
    if (code !== STATUS.OK) p.simulator.failNext(1, code);
    const result = await p.carrier.submit(sms(`97250333${String(i).padStart(4, '0')}`, `status ${code}`, i + 1));
    const refusedOnce = p.simulator.stats().failedOnPurpose - failedBefore === 1;
    assert.equal(refusedOnce, code !== STATUS.OK, 'the simulator answered the status once');
    assert.equal(classOf(result, refusedOnce), expected, JSON.stringify(result));
    if (!result.ok && code !== STATUS.OK) assert.equal(result.status ?? DELIVERY.FAILED, expectedStatus(expected));
  });
}

// The delivery status a refused message is failed with (a transient refusal fails as FAILED once out of attempts).
function expectedStatus(c: StatusClass): number {
  return c === 'fail: illegal message' ? DELIVERY.ILLEGAL_MESSAGE : DELIVERY.FAILED;
}
