// The one interface every carrier protocol implements (SMPP, a SIP voice trunk, ...), in delivery terms: a
// submit result that says whether a failure is permanent (with our delivery status) or worth retrying, receipts
// that carry our delivery status, inbound messages. A carrier keeps links to its provider (SMPP: binds; a trunk:
// its share of the call limit); each protocol maps its own codes inside its own folder, and the delivery workers
// and the store never see a protocol's codes.
import type { DeliveryStatus } from '../domain/status.ts';

/** How a speech payload is spoken (a voice call). */
export interface SpeechPayload {
  voice: 'ymMale' | 'ymFemale';
  rate: number;
  repeat: number;
  paidSeconds?: number;
}

/** A template payload: a template the provider approved, filled with its parameters (a WhatsApp-like channel). */
export interface TemplatePayload {
  name: string;
  language: string;
  parameters: string[];
}

/**
 * One message to hand to a carrier, its payload that of its channel's kind (domain/channels.ts): a text payload is
 * `text` (the full message; the carrier splits it into parts), a speech payload is `text` spoken as `spoken` says,
 * a template payload is `template` (with `text` as what the message reads like, for logs and fallbacks).
 */
export interface OutboundMessage {
  /** Our message row id; echoed back in results so the dispatcher can record them. */
  messageId: number;
  /** Sender as the customer gave it (alphanumeric or digits). */
  source: string;
  /** Destination in international form without '+', e.g. 972501234567. */
  destination: string;
  text: string;
  /** Set for a speech payload (a voice call): the text is spoken so. */
  spoken?: SpeechPayload;
  /** Set for a template payload. */
  template?: TemplatePayload;
}

/** One SMS to hand to an SMS carrier: a message with a text payload. */
export type OutboundSms = OutboundMessage;

/**
 * Outcome of one submit. `transient` failures are retried by the dispatcher with backoff; a permanent one ends
 * the message with `status`, our delivery status (1 failed when absent; 18 for a message the carrier calls
 * malformed).
 */
export type SubmitResult =
  | { ok: true; carrierMessageIds: string[] }
  | {
      ok: false;
      transient: boolean;
      error: string;
      status?: DeliveryStatus;
      /**
       * The carrier took no part of the message and refused it for its own reasons (its failure, its queue, its
       * throttling after retries, no link to send on): another carrier on the message's route may take it now.
       * Never set when the carrier may hold a copy (a submit left unanswered).
       */
      elsewhere?: boolean;
      /**
       * The provider asked to slow down (WhatsApp's throughput, pair-rate and spam-rate answers): the message is
       * retried later and the wait is not counted as an attempt, so throttling alone never fails it.
       */
      throttled?: boolean;
      /** The provider's own code for the failure (Meta's error code), kept beside the delivery status. */
      carrierError?: string;
    };

/** A delivery receipt as the carrier reported it, before it is matched to a message. */
export interface Receipt {
  carrierMessageId: string;
  /** Our delivery status (compatibility.md's catalogue): 102 delivered, 15 filtered handset, ...; -1 intermediate. */
  status: DeliveryStatus;
  /** The carrier did not carry the message after all (a call never placed, refused by the trunk, or answered
   * with no codec in common): refund it. */
  notPlaced?: true;
  /** For an answered call: how long its message played. */
  durationMs?: number;
  /** The provider's own code for a failure (Meta's error code of a failed WhatsApp message). */
  carrierError?: string;
  /** The carrier did not carry it for now (Meta's throttling, reported in a status): send it again later. */
  sendAgain?: true;
}

/**
 * A part the carrier accepted after its submit had been given up as timed out (SMPP: a late submit_sm_resp OK):
 * the carrier holds that copy too.
 */
export interface LateAccept {
  messageId: number;
  partIndex: number;
  carrierMessageId: string;
}

/** An inbound (mobile-originated) message. */
export interface InboundMessage {
  /** Sender in international form without '+'. */
  from: string;
  /** Our number it was sent to, as the carrier gave it. */
  to: string;
  text: string;
  at: number;
  /** Set when this is one part of a concatenated SMS (its text is the part's); the receiver reassembles. */
  part?: { ref: number; total: number; seq: number };
  /** The channel it came on (domain/channels.ts); SMS when absent. */
  channel?: string;
  /** The provider's id of the message (WhatsApp's wamid). */
  carrierMessageId?: string;
  /** A chat user's display name, as their profile gives it. */
  name?: string;
}

/** An inbound SMS: an inbound message. */
export type InboundSms = InboundMessage;

export interface Carrier {
  readonly name: string;
  /** The protocol it speaks (its folder under carriers/). */
  readonly protocol: string;
  /**
   * Submits this carrier can have unanswered at once (its windows). The dispatcher lets no more messages than
   * this be submitted and not yet recorded, so a crash sends at most this many again.
   */
  readonly inFlightLimit: number;
  start(): Promise<void>;
  /** Submits one message (all its parts). Resolves when the carrier answered every part. */
  submit(message: OutboundMessage): Promise<SubmitResult>;
  onReceipt(handler: (receipt: Receipt) => void | Promise<void>): void;
  onInbound(handler: (message: InboundMessage) => void | Promise<void>): void;
  /**
   * A capability of carriers whose submits can be accepted after they timed out (SMPP): registers a handler for
   * such a part. Absent when the protocol cannot accept late.
   */
  onLateAccept?(handler: (accepted: LateAccept) => void | Promise<void>): void;
  /** Whether it can take submits now (at least one link up). */
  canSubmit(): boolean;
  /** For a voice trunk: calls it can start now (below its concurrent-call limit). */
  freeSlots?(): number;
  /**
   * Units of its capacity that several nodes share through leases (its links: an SMPP carrier's binds, shares of
   * a trunk's concurrent calls); absent when it cannot be shared out.
   */
  readonly shares?: number;
  /** Uses only the shares numbered `indexes` (those this node holds); `start()` uses them all. */
  useShares?(indexes: number[]): Promise<void>;
  /** How it is doing on this node now (links, window, throttling, last error), for health reports. */
  condition?(): CarrierCondition;
  /** Graceful: closes its links (SMPP: unbinds). */
  stop(): Promise<void>;
}

/**
 * A carrier's own view of itself on this node, read for /healthz, /metrics and the node's health snapshot. Its
 * `binds*` fields count links (the names /healthz and /metrics have always shown): SMPP binds, a trunk's answer.
 */
export interface CarrierCondition {
  /** Links able to submit now on this node (an SMPP bind; a voice trunk: 1 while it answers). */
  bindsUp: number;
  /** Links this node keeps open (the shares it holds). */
  bindsHeld: number;
  /** Links the carrier is configured with, over every node. */
  bindsWanted: number;
  /** Submits sent and not yet answered (SMPP: submit_sm parts in the windows; a trunk: calls up). */
  windowInUse: number;
  /** The most that may be unanswered at once on this node. */
  windowSize: number;
  /** Since when the carrier has been pushing back (SMPP ESME_RTHROTTLED, ESME_RMSGQFUL); absent when it is not. */
  throttledSince?: number;
  /** Submits wait now for the carrier's own pace (SMPP maxSubmitsPerSecond, or its rate cut after a push-back). */
  paced?: boolean;
  /** Since when no link can submit; absent while one can. */
  downSince?: number;
  /** How long it may be down or throttled before that is an incident (SMPP downGraceMs). */
  graceMs: number;
  /** The last failure it saw (a connection error, a refused link, a refused submit), ms since the epoch. */
  lastError?: { text: string; at: number };
}

/** What every carrier's settings hold; each protocol adds its own (read by that protocol only). */
export interface CarrierConfigBase {
  name: string;
  /** Which protocol's factory builds it (carriers/index.ts); absent means 'smpp'. */
  protocol?: string;
  /** SMS parts it takes per day at most (carriers/limits.ts; read by delivery, never by the protocol). */
  dailyCap?: number;
  /** What one SMS part costs, in agorot (carriers/limits.ts). */
  costPerPart?: number;
  /**
   * Its settings sealed in the store that this node's secret key does not open (sealed by a node with another
   * key): the carrier is not connected here (carriers/unopened.ts).
   */
  unopenedSecrets?: string[];
  readonly [setting: string]: unknown;
}

/** The log lines a carrier writes (the service's logger, bound to the carrier). */
export interface CarrierLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** The last health check of a voice trunk (SIP: an OPTIONS request), as /healthz reports it. */
export interface TrunkHealth {
  /** Whether the trunk answered (below 500); undefined before the first check ends. */
  up?: boolean;
  /** Its answer's status, when it answered. */
  sipStatus?: number;
  /** Round trip of the answer, ms. */
  rttMs?: number;
  /** When the check ended (ms since the epoch). */
  checkedAt?: number;
  /** Why it is down. */
  error?: string;
}
