// A message's lifecycle, decided here and written by the store: on each event (a carrier took it, a retry, a
// failure before the carrier, a blocked recipient, receipts for its parts, the end of its receipt window) the
// message's new state and delivery status, whether that is final, and whether its charge is refunded.
//
// States: scheduled -> queued -> submitting (claimed under a lease) -> submitted (awaiting receipts) -> done;
// or skipped (blocked at dispatch), failed (before reaching the carrier), cancelled (a campaign cancelled before it
// left, or a WhatsApp message withdrawn while still queued because its SMS fallback went in its place).
// Part rule: a part's first final status sticks; an intermediate receipt (-1) never replaces a final one.
// Message rule: final only when every part is final; then 102 when every part was delivered, else the status of
// the lowest-numbered part that failed. A final status is never replaced, except the sweeper's 2 ("no
// confirmation within the window"), which a later final receipt does replace (it is better information).
// A WhatsApp message moves on along sent (on the way, like -1) -> delivered -> read, in whatever order its
// statuses come: a status further along replaces one before it, never the reverse (read is never downgraded to
// delivered), and a failure after delivered or read leaves the message delivered or read (it reached the phone).
import { DELIVERY, type DeliveryStatus } from './status.ts';

/** Where a message is in its life (messages.state). */
export type LifecycleState =
  | 'scheduled'
  | 'queued'
  | 'submitting'
  | 'submitted'
  | 'done'
  | 'skipped'
  | 'failed'
  | 'cancelled';

/** Why a message's charge goes back to the account (the ledger row's reason). */
export const REFUND_REASON = {
  failed: 'refund: message failed before reaching the carrier',
  blocked: 'refund: recipient blocked at dispatch',
  notCarried: 'refund: the trunk did not carry the call (never placed, refused, or no codec in common)',
  whatsappFailed: 'refund: the WhatsApp message failed (WhatsApp charges delivered messages only)',
  whatsappWithdrawn: 'refund: the WhatsApp message was withdrawn unsent (its SMS fallback went in its place)',
} as const;

/** The state a dispatch outcome is recorded from: the message is still under the claimer's lease. */
export const LEASED_STATE = 'submitting' satisfies LifecycleState;
/** The state of a message out with the carrier, awaiting its receipts until the end of its window. */
export const AWAITING_RECEIPTS_STATE = 'submitted' satisfies LifecycleState;
/** States in which a receipt may settle a message: out with the carrier, or re-submitted after a lease expired. */
export const RECEIPT_SETTLES_STATES: readonly LifecycleState[] = ['submitting', 'submitted', 'done'];
/** States of a message not yet settled by the dispatcher: its campaign is not finished while one is left. */
export const OPEN_STATES: readonly LifecycleState[] = ['scheduled', 'queued', 'submitting'];
/**
 * States of a message no carrier has been handed yet: it may still be withdrawn. 'submitting' is not among them:
 * the dispatcher holds it under a lease and may be handing it over at this moment.
 */
export const NOT_HANDED_OVER_STATES: readonly LifecycleState[] = ['scheduled', 'queued'];

const DELIVERED = new Set<DeliveryStatus>([DELIVERY.DELIVERED_LEGACY, DELIVERY.DELIVERED]);
/** Statuses on the way: a receipt may still change them. */
const INTERMEDIATE = new Set<DeliveryStatus>([DELIVERY.SUBMITTED, DELIVERY.WHATSAPP_SENT]);
/** How far along a WhatsApp message is: a status further along replaces an earlier one. */
const PROGRESS = new Map<DeliveryStatus, number>([
  [DELIVERY.WHATSAPP_SENT, 1],
  [DELIVERY.WHATSAPP_DELIVERED, 2],
  [DELIVERY.WHATSAPP_READ, 3],
]);

/** Whether `next` is further along than `current` (WhatsApp's sent, delivered, read). */
export function progresses(current: DeliveryStatus | null | undefined, next: DeliveryStatus): boolean {
  const from = current === null || current === undefined ? undefined : PROGRESS.get(current);
  const to = PROGRESS.get(next);
  return from !== undefined && to !== undefined && to > from;
}
const SETTLES = new Set<LifecycleState>(RECEIPT_SETTLES_STATES);

/** A message's (or part's) state and delivery status where they stand. */
export interface Standing {
  state: LifecycleState;
  status: DeliveryStatus | null;
}

/** Something that happens to a message. */
export type LifecycleEvent =
  | { kind: 'submitted' }
  | { kind: 'retry' }
  | { kind: 'failed'; status: DeliveryStatus }
  | { kind: 'blocked' }
  | { kind: 'window-ended' }
  /** A WhatsApp message whose SMS fallback went while it still waited in the queue: it is not sent after all. */
  | { kind: 'withdrawn' }
  /** Receipts: the statuses of the message's parts as merged (index = part) and how many parts it has. */
  | { kind: 'receipts'; parts: ReadonlyArray<DeliveryStatus | null | undefined>; partCount: number };

/** What an event makes of a message: its new state and status, whether final, and a refund's reason (or null). */
export interface Transition {
  state: LifecycleState;
  /** The new status; a retry keeps the one it had (null: none yet). */
  status: DeliveryStatus | null;
  final: boolean;
  refund: string | null;
}

const SUBMITTED: Transition = { state: 'submitted', status: DELIVERY.SUBMITTED, final: false, refund: null };
const BLOCKED: Transition = { state: 'skipped', status: DELIVERY.BLOCKED, final: true, refund: REFUND_REASON.blocked };
const WINDOW_ENDED: Transition = { state: 'done', status: DELIVERY.TIMEOUT, final: true, refund: null };
const WITHDRAWN: Transition = {
  state: 'cancelled',
  status: DELIVERY.DELETED,
  final: true,
  refund: REFUND_REASON.whatsappWithdrawn,
};
const NOT_HANDED_OVER = new Set<LifecycleState>(NOT_HANDED_OVER_STATES);

/**
 * The message after `event`, or undefined when the event changes nothing (a dispatch outcome for a message no
 * longer under lease, the window's end for one not awaiting receipts, receipts that settle nothing yet).
 */
export function nextState(current: Standing, event: LifecycleEvent): Transition | undefined {
  switch (event.kind) {
    case 'submitted':
      return current.state === LEASED_STATE ? SUBMITTED : undefined;
    case 'retry':
      return current.state === LEASED_STATE
        ? { state: 'queued', status: current.status, final: false, refund: null }
        : undefined;
    case 'failed':
      return current.state === LEASED_STATE
        ? { state: 'failed', status: event.status, final: true, refund: REFUND_REASON.failed }
        : undefined;
    case 'blocked':
      return current.state === LEASED_STATE ? BLOCKED : undefined;
    case 'window-ended':
      return current.state === AWAITING_RECEIPTS_STATE ? WINDOW_ENDED : undefined;
    case 'withdrawn':
      return NOT_HANDED_OVER.has(current.state) ? WITHDRAWN : undefined;
    case 'receipts': {
      if (!SETTLES.has(current.state)) return undefined;
      const derived = deriveMessageStatus(event.parts, event.partCount);
      // A one-part message on its way (WhatsApp's sent) shows it, still awaiting its receipts.
      const onTheWay = event.partCount === 1 ? event.parts[0] : undefined;
      if (derived === undefined && onTheWay === DELIVERY.WHATSAPP_SENT && current.status === DELIVERY.SUBMITTED)
        return { state: AWAITING_RECEIPTS_STATE, status: onTheWay, final: false, refund: null };
      if (derived === undefined || !mayReplace(current.status, derived)) return undefined;
      return { state: 'done', status: derived, final: true, refund: null };
    }
  }
}

/** The refund a receipt carries with it: the carrier never took the message (a call not carried), or none. */
export function receiptRefund(receipt: { refund?: boolean }): string | null {
  return receipt.refund ? REFUND_REASON.notCarried : null;
}

/** Whether a delivery status is final (anything but one on the way: -1, or WhatsApp's sent). */
export function isFinalStatus(s: DeliveryStatus | null | undefined): s is DeliveryStatus {
  return s !== null && s !== undefined && !INTERMEDIATE.has(s);
}

/**
 * The part-level merge: the first final status sticks, unless the incoming one is further along (WhatsApp's read
 * after delivered); one on the way only fills an empty slot or moves on from an earlier one.
 */
export function mergePartStatus(current: DeliveryStatus | null, incoming: DeliveryStatus): DeliveryStatus | null {
  if (progresses(current, incoming)) return incoming;
  if (isFinalStatus(current)) return current;
  if (current !== null && progresses(incoming, current)) return current;
  return incoming;
}

/**
 * Of two carrier ids of one part (a message submitted twice), the status that counts: any status over none, a
 * final one over an intermediate one, delivered over failed.
 */
export function betterPartStatus(
  current: DeliveryStatus | null | undefined,
  candidate: DeliveryStatus | null,
): DeliveryStatus | null {
  if (current === undefined) return candidate;
  if (!isFinalStatus(current) && candidate !== null) return candidate;
  if (isFinalStatus(candidate) && DELIVERED.has(candidate) && !DELIVERED.has(current as DeliveryStatus))
    return candidate;
  return current;
}

/** A message's status from its parts' statuses (index = part); undefined while any part is not final. */
export function deriveMessageStatus(
  parts: ReadonlyArray<DeliveryStatus | null | undefined>,
  partCount: number,
): DeliveryStatus | undefined {
  if (parts.length < partCount) return undefined;
  for (let i = 0; i < partCount; i++) if (!isFinalStatus(parts[i])) return undefined;
  for (let i = 0; i < partCount; i++) if (!DELIVERED.has(parts[i]!)) return parts[i]!;
  return DELIVERY.DELIVERED;
}

/** Whether a message at `current` may move to the final status `next` (monotone; 2 may be replaced). */
export function mayReplace(current: DeliveryStatus | null, next: DeliveryStatus): boolean {
  if (current === next) return false;
  if (progresses(current, next)) return true;
  return current === null || INTERMEDIATE.has(current) || current === DELIVERY.TIMEOUT;
}

/**
 * Whether a status change sets off a follow-up call: a text of a voice send of type 2 refused by a filtered
 * handset (15) is followed, once, by a call speaking it.
 */
export function wantsFollowUpCall(
  status: DeliveryStatus,
  message: { channel: string; campaignKind: string; ttsType: number | undefined },
): boolean {
  return (
    status === DELIVERY.FILTERED_HANDSET &&
    message.channel === 'sms' &&
    message.campaignKind === 'tts' &&
    message.ttsType === 2
  );
}

/** Whether a status says the phone is a filtered handset that refuses texts (it joins the registry). */
export function refusesTexts(status: DeliveryStatus): boolean {
  return status === DELIVERY.FILTERED_HANDSET;
}

/**
 * The refund a message's final receipt status brings: a WhatsApp message that ends without reaching the phone
 * (failed, no WhatsApp, outside the window, template refused) is given back, as WhatsApp charges delivered messages
 * only; a text or a call keeps its charge.
 */
export function receiptStatusRefund(channel: string, status: DeliveryStatus, final: boolean): string | null {
  if (channel !== 'whatsapp' || !final) return null;
  return status === DELIVERY.WHATSAPP_DELIVERED || status === DELIVERY.WHATSAPP_READ || DELIVERED.has(status)
    ? null
    : REFUND_REASON.whatsappFailed;
}
