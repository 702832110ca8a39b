// A call's outcome as a delivery status, and which outcomes are refunded. The statuses are compatibility.md's
// where one fits (102 delivered, 108 rejected, 1 failed) and Yona's own in the catalogue's "not delivered"
// range otherwise (src/domain/status.ts). A call is paid when the trunk carried it to the callee's side (it
// was answered, rang out, or the callee's side refused it); it is refunded when the trunk never carried it.
import { DELIVERY, type DeliveryStatus } from '../../domain/status.ts';
import type { CallOutcome, CallResult } from './call.ts';

/** The delivery status of each call outcome. */
export const CALL_STATUS: Record<CallResult, DeliveryStatus> = {
  answered: DELIVERY.DELIVERED,
  hung_up: DELIVERY.CALL_HUNG_UP,
  no_codec: DELIVERY.CALL_NO_CODEC,
  busy: DELIVERY.CALL_BUSY,
  no_answer: DELIVERY.CALL_NO_ANSWER,
  rejected: DELIVERY.REJECTED,
  refused: DELIVERY.CALL_REFUSED,
  failed: DELIVERY.FAILED,
};

/** Outcomes whose call is refunded: never placed, refused by the trunk, answered with no codec in common. */
export const CALL_REFUNDED: ReadonlySet<CallResult> = new Set<CallResult>(['failed', 'refused', 'no_codec']);

/**
 * Whether a call the trunk did not carry towards the callee (no provisional response beyond 100 Trying came)
 * goes to the next trunk of its route, by RFC 3261's meaning of the final response: the trunk's own failure or
 * refusal of us, where another trunk may well carry the call. No answer to the INVITE at all (timer B) or no way
 * to reach the trunk; 3xx (redirects are not followed: the trunk did not take the call); 401/407 with the
 * credentials refused and 403 (the trunk refuses our account or traffic); 408 (the trunk could not get an answer
 * downstream in time); 5xx (500, 502, 503, 504, ...: 21.5.4 asks a client to try an alternate server on 503).
 * Every other final response is the callee's side's and final for the message: 404, 480, 484, 486, 487, 488, 6xx.
 */
export function triesAnotherTrunk(outcome: CallOutcome): boolean {
  const status = outcome.sipStatus;
  if (status === undefined) return outcome.result === 'failed';
  return (
    (status >= 300 && status < 400) ||
    status === 401 ||
    status === 403 ||
    status === 407 ||
    status === 408 ||
    (status >= 500 && status < 600)
  );
}
