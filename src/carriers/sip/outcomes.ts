// A call's outcome as a delivery status, and which outcomes are refunded. The statuses are compatibility.md's
// where one fits (102 delivered, 108 rejected, 1 failed) and Yona's own in the catalogue's "not delivered"
// range otherwise (src/domain/status.ts). A call is paid when the trunk carried it to the callee's side (it
// was answered, rang out, or the callee's side refused it); it is refunded when the trunk never carried it.
import { DELIVERY, type DeliveryStatus } from '../../domain/status.ts';
import type { CallResult } from './call.ts';

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
