// The ingress hook of a protocol whose receipts and inbound messages come by HTTP (a webhook): its routes, which
// every API node mounts under /webhooks/<protocol>/<carrier> (or the webhook name the protocol gives). A route's handler gets the raw body (for signature
// checks) and the carrier's settings, and answers either a refusal (nothing is stored) or a success with the
// neutral events it read, which are stored before the answer goes out and processed like an SMPP receipt.
import type { CarrierConfigBase, InboundSms, Receipt } from './types.ts';

/** One webhook request as a protocol's route sees it. */
export interface IngressRequest {
  method: string;
  /** The path below /webhooks/<protocol>/<carrier>, without slashes around it ('' for that address itself). */
  path: string;
  query: Readonly<Record<string, string>>;
  /** Header names in lower case. */
  headers: Readonly<Record<string, string | undefined>>;
  /** The body exactly as it came (empty for a GET). */
  body: Buffer;
  /** The settings of the carrier named in the address (its secrets opened). */
  settings: CarrierConfigBase;
}

/**
 * An event a webhook carried. `key` says what makes it one event (the carrier's own event id, best): the same
 * event posted again is stored once. Without it, the event's content is its key.
 */
export type IngressEvent =
  | { kind: 'receipt'; receipt: Receipt; key?: string }
  | { kind: 'inbound'; sms: InboundSms; key?: string };

/** A route's answer: `events` are stored (only for a 2xx status) before the answer is sent. */
export interface IngressAnswer {
  status: number;
  body?: string;
  contentType?: string;
  events?: IngressEvent[];
}

/** One route of a protocol's webhook. */
export interface IngressRoute {
  method: 'GET' | 'POST' | 'PUT';
  /** Below the carrier's address, without slashes around it ('' for the address itself), e.g. 'receipts'. */
  path: string;
  handle(request: IngressRequest): IngressAnswer | Promise<IngressAnswer>;
}

/** What a protocol declares to take webhooks. */
export interface ProtocolIngress {
  /** The first word of its addresses (/webhooks/<name>/<carrier>); the protocol's name when absent. */
  name?: string;
  routes: readonly IngressRoute[];
  /** The largest body it takes, bytes (INGRESS_BODY_LIMIT when absent). */
  maxBodyBytes?: number;
}

/** The largest webhook body a protocol takes unless it says otherwise. */
export const INGRESS_BODY_LIMIT = 64 * 1024;
