// The message lifecycle against figures written here: each event's new state and status, whether final, and the
// refund it carries; the part and message rules of receipts; the filtered-handset follow-up.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  betterPartStatus,
  deriveMessageStatus,
  isFinalStatus,
  mayReplace,
  mergePartStatus,
  nextState,
  receiptRefund,
  wantsFollowUpCall,
  type LifecycleState,
  type Standing,
} from '../../src/domain/lifecycle.ts';

const at = (state: LifecycleState, status: Standing['status'] = null): Standing => ({ state, status });
const summary = (t: ReturnType<typeof nextState>) => t && [t.state, t.status, t.final, t.refund];

describe('lifecycle: dispatch outcomes', () => {
  it('a carrier taking a leased message makes it submitted (-1), not final, not refunded', () => {
    assert.deepEqual(summary(nextState(at('submitting'), { kind: 'submitted' })), ['submitted', -1, false, null]);
  });
  it('a retry puts it back in the queue with the status it had', () => {
    assert.deepEqual(summary(nextState(at('submitting'), { kind: 'retry' })), ['queued', null, false, null]);
  });
  it('a failure before the carrier is final and refunds the message', () => {
    assert.deepEqual(summary(nextState(at('submitting'), { kind: 'failed', status: 1 })), [
      'failed',
      1,
      true,
      'refund: message failed before reaching the carrier',
    ]);
  });
  it('a blocked recipient is skipped with 201 and refunded', () => {
    assert.deepEqual(summary(nextState(at('submitting'), { kind: 'blocked' })), [
      'skipped',
      201,
      true,
      'refund: recipient blocked at dispatch',
    ]);
  });
  it('an outcome for a message no longer under lease changes nothing', () => {
    for (const state of ['queued', 'submitted', 'done', 'failed', 'cancelled'] as const)
      for (const kind of ['submitted', 'retry', 'blocked'] as const)
        assert.equal(nextState(at(state), { kind }), undefined, `${kind} from ${state}`);
  });
});

describe('lifecycle: a WhatsApp message withdrawn for its SMS fallback', () => {
  it('one still queued (or scheduled) is cancelled with 104, final, and refunded', () => {
    for (const state of ['queued', 'scheduled'] as const)
      assert.deepEqual(summary(nextState(at(state), { kind: 'withdrawn' })), [
        'cancelled',
        104,
        true,
        'refund: the WhatsApp message was withdrawn unsent (its SMS fallback went in its place)',
      ]);
  });
  it('one the dispatcher holds, or a carrier has, is not withdrawn', () => {
    for (const state of ['submitting', 'submitted', 'done', 'failed', 'skipped', 'cancelled'] as const)
      assert.equal(nextState(at(state, -1), { kind: 'withdrawn' }), undefined, state);
  });
});

describe('lifecycle: receipts and the receipt window', () => {
  it('the end of the window gives a submitted message 2, final; nothing else is touched', () => {
    assert.deepEqual(summary(nextState(at('submitted', -1), { kind: 'window-ended' })), ['done', 2, true, null]);
    assert.equal(nextState(at('done', 102), { kind: 'window-ended' }), undefined);
    assert.equal(nextState(at('queued'), { kind: 'window-ended' }), undefined);
  });
  it('receipts settle a message out with the carrier once every part is final', () => {
    const receipts = (parts: Array<-1 | 1 | 15 | 101 | 102 | 103 | null>) =>
      ({ kind: 'receipts', parts, partCount: parts.length }) as const;
    assert.deepEqual(summary(nextState(at('submitted', -1), receipts([102, 102]))), ['done', 102, true, null]);
    assert.deepEqual(summary(nextState(at('submitted', -1), receipts([102, 15]))), ['done', 15, true, null]);
    assert.equal(nextState(at('submitted', -1), receipts([102, -1])), undefined, 'a part still out');
    assert.equal(nextState(at('submitted', -1), receipts([102, null])), undefined, 'a part without receipt');
    // Re-submitted after its lease lapsed: the first copy's receipt still settles it.
    assert.deepEqual(summary(nextState(at('submitting', null), receipts([101]))), ['done', 101, true, null]);
  });
  it('a final status stays, except the window-end 2, which a real receipt replaces', () => {
    const one = (s: 101 | 102) => ({ kind: 'receipts', parts: [s], partCount: 1 }) as const;
    assert.equal(nextState(at('done', 102), one(101)), undefined);
    assert.equal(nextState(at('done', 101), one(101)), undefined);
    assert.deepEqual(summary(nextState(at('done', 2), one(102))), ['done', 102, true, null]);
  });
  it('a receipt never settles a message before it left or after it ended otherwise', () => {
    for (const state of ['scheduled', 'queued', 'failed', 'skipped', 'cancelled'] as const)
      assert.equal(nextState(at(state), { kind: 'receipts', parts: [102], partCount: 1 }), undefined, state);
  });
  it("a receipt of a call the trunk never carried refunds it; others don't", () => {
    assert.equal(
      receiptRefund({ refund: true }),
      'refund: the trunk did not carry the call (never placed, refused, or no codec in common)',
    );
    assert.equal(receiptRefund({}), null);
  });
});

describe('lifecycle: parts', () => {
  it("-1 and WhatsApp's sent are the only statuses that are not final", () => {
    assert.deepEqual(
      [isFinalStatus(-1), isFinalStatus(301), isFinalStatus(null), isFinalStatus(2), isFinalStatus(0)],
      [false, false, false, true, true],
    );
  });
  it("a part's first final status sticks; an intermediate one fills only an empty slot", () => {
    assert.deepEqual(
      [mergePartStatus(null, -1), mergePartStatus(-1, 102), mergePartStatus(102, -1), mergePartStatus(102, 101)],
      [-1, 102, 102, 102],
    );
  });
  it('of two copies of a part: a status over none, final over intermediate, delivered over failed', () => {
    assert.equal(betterPartStatus(undefined, null), null);
    assert.equal(betterPartStatus(null, -1), -1);
    assert.equal(betterPartStatus(-1, 101), 101);
    assert.equal(betterPartStatus(101, 102), 102);
    assert.equal(betterPartStatus(0, 101), 0, 'the older delivered code counts as delivered');
    assert.equal(betterPartStatus(102, 101), 102);
    assert.equal(betterPartStatus(101, -1), 101);
    assert.equal(betterPartStatus(101, null), 101);
  });
  it('a message is 102 when every part was delivered, else its first failed part', () => {
    assert.deepEqual(
      [deriveMessageStatus([102, 0, 102], 3), deriveMessageStatus([102, 103, 101], 3), deriveMessageStatus([102], 2)],
      [102, 103, undefined],
    );
  });
  it('statuses only move forward', () => {
    assert.deepEqual(
      [mayReplace(null, 102), mayReplace(-1, 101), mayReplace(2, 102), mayReplace(102, 101), mayReplace(102, 102)],
      [true, true, true, false, false],
    );
  });
});

describe('lifecycle: the filtered-handset follow-up', () => {
  const text = { channel: 'sms', campaignKind: 'tts', ttsType: 2 };
  it('a type 2 voice send text refused with 15 is followed by a call', () => {
    assert.equal(wantsFollowUpCall(15, text), true);
  });
  it('no call for another status, another tts type, a plain send or a call refused', () => {
    assert.equal(wantsFollowUpCall(101, text), false);
    assert.equal(wantsFollowUpCall(15, { ...text, ttsType: 3 }), false);
    assert.equal(wantsFollowUpCall(15, { ...text, campaignKind: 'sms', ttsType: undefined }), false);
    assert.equal(wantsFollowUpCall(15, { ...text, channel: 'call' }), false);
  });
});

describe('lifecycle: WhatsApp statuses in any order', () => {
  it('sent shows on the way; delivered then read move on; read is never downgraded', () => {
    assert.deepEqual(summary(nextState(at('submitted', -1), { kind: 'receipts', parts: [301], partCount: 1 })), [
      'submitted',
      301,
      false,
      null,
    ]);
    assert.deepEqual(summary(nextState(at('submitted', 301), { kind: 'receipts', parts: [302], partCount: 1 })), [
      'done',
      302,
      true,
      null,
    ]);
    assert.deepEqual(summary(nextState(at('done', 302), { kind: 'receipts', parts: [303], partCount: 1 })), [
      'done',
      303,
      true,
      null,
    ]);
    assert.equal(nextState(at('done', 303), { kind: 'receipts', parts: [302], partCount: 1 }), undefined);
    assert.equal(nextState(at('done', 303), { kind: 'receipts', parts: [301], partCount: 1 }), undefined);
    assert.equal(nextState(at('done', 302), { kind: 'receipts', parts: [302], partCount: 1 }), undefined);
  });
  it('a failure after delivered or read leaves it so; a failure before ends it', () => {
    assert.equal(nextState(at('done', 302), { kind: 'receipts', parts: [304], partCount: 1 }), undefined);
    assert.equal(nextState(at('done', 303), { kind: 'receipts', parts: [305], partCount: 1 }), undefined);
    assert.deepEqual(summary(nextState(at('submitted', 301), { kind: 'receipts', parts: [304], partCount: 1 })), [
      'done',
      304,
      true,
      null,
    ]);
    assert.deepEqual(
      [mergePartStatus(302, 303), mergePartStatus(303, 302), mergePartStatus(302, 304), mergePartStatus(301, 302)],
      [303, 303, 302, 302],
    );
    assert.deepEqual([mayReplace(302, 303), mayReplace(303, 302), mayReplace(2, 303)], [true, false, true]);
  });
});
