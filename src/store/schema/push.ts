// Tables of the push issue: registered URLs per account and type, the event queue the pusher drains,
// its delivery log, and the per-account signing secrets.
import type { Generated } from 'kysely';

/** The feeds a URL can be registered for (WhatsApp feeds are accepted; nothing emits them yet). */
export type PushType = 'dlr' | 'incoming_sms' | 'blacklist' | 'dlr_whatsapp' | 'incoming_whatsapp';

/** registered -> disabled (after too many failures) -> registered (operator enable); any -> deleted. */
export type PushRegistrationState = 'registered' | 'disabled' | 'deleted';

/** pending -> delivered; superseded (an intermediate dlr recorded after a final one); dead (registration deleted). */
export type PushEventState = 'pending' | 'delivered' | 'superseded' | 'dead';

/** One URL per account and type (at most one not deleted). */
export interface PushRegistrationTable {
  id: Generated<number>;
  account_id: number;
  type: PushType;
  url: string;
  state: PushRegistrationState;
  /** Failed delivery rounds since the last success (concurrent failures of one round count once). */
  consecutive_failures: number;
  /** No delivery before this instant (backoff after a failure); 0 when healthy. */
  retry_at: number;
  /** When the last counted failure happened; attempts started before it do not count again. */
  last_failure_at: number | null;
  disabled_at: number | null;
  disabled_reason: string | null;
  created_at: number;
  deleted_at: number | null;
}

/** The queue: one row per event to push. */
export interface PushEventTable {
  id: Generated<number>;
  registration_id: number;
  account_id: number;
  type: PushType;
  /** JSON object of the form fields, in wire order. */
  payload: string;
  /** Events sharing a key (e.g. one message's reports) are delivered one after another, in id order. */
  order_key: string | null;
  /** dlr: 1 for a final delivery status, 0 for an intermediate one; null for other feeds. */
  is_final: number | null;
  state: PushEventState;
  /** Completed delivery attempts. */
  attempts: number;
  /** Due time; a far-future value holds the events of a disabled registration. */
  next_attempt_at: number;
  /** Claimed by a pusher until then. */
  lease_until: number | null;
  created_at: number;
  delivered_at: number | null;
}

/** The delivery log: one row per attempt. */
export interface PushAttemptTable {
  id: Generated<number>;
  registration_id: number;
  event_id: number;
  /** When the request started. */
  at: number;
  /** HTTP status of the answer; null when none came (refused, timeout, blocked address). */
  http_status: number | null;
  latency_ms: number;
  error: string | null;
}

/** An account's signing secret. */
export interface PushSecretTable {
  id: Generated<number>;
  account_id: number;
  /**
   * The HMAC key, sealed with the secret key (`sealed:v1....`, domain/sealed.ts): the pusher opens it to sign.
   * Never logged, never returned by the API.
   */
  secret: string;
  created_at: number;
}

/** The push tables, merged into Database. */
export interface PushTables {
  push_registrations: PushRegistrationTable;
  push_events: PushEventTable;
  push_attempts: PushAttemptTable;
  push_secrets: PushSecretTable;
}
