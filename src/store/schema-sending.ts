// Tables of the send path: campaigns and one message row per recipient (the dispatcher's queue).
import type { Generated } from 'kysely';

/** Campaign states: scheduled -> queued -> sending -> sent, or scheduled -> cancelled. */
export type CampaignState = 'scheduled' | 'queued' | 'sending' | 'sent' | 'cancelled';

/**
 * Message states: scheduled (its campaign is not due) -> queued (awaiting the dispatcher) -> submitting
 * (claimed under a lease) -> submitted (carrier accepted; awaiting receipt) -> done (final delivery status);
 * or skipped (blocked / temp_bl at dispatch), failed (permanent carrier failure), cancelled.
 */
export type MessageState = 'scheduled' | 'queued' | 'submitting' | 'submitted' | 'done' | 'skipped' | 'failed' | 'cancelled';

export interface CampaignTable {
  id: Generated<number>;
  account_id: number;
  name: string | null;
  /** 'sms', 'bulk', 'tts', 'otp', 'verify', 'birthday'. */
  kind: string;
  source: string;
  state: CampaignState;
  /** When it goes out (null: at once). */
  scheduled_at: number | null;
  recipients: number;
  credits_charged: number;
  agorot_charged: number;
  /** JSON: send options kept for the record (add_unsubscribe, tts block, links...). */
  options: string;
  created_at: number;
  released_at: number | null;
  finished_at: number | null;
  cancelled_at: number | null;
}

export interface MessageTable {
  id: Generated<number>;
  campaign_id: number;
  account_id: number;
  /** Caller's id from `phone id="..."` (may be null). */
  external_id: string | null;
  /** International form without '+', e.g. 972501234567. */
  phone: string;
  source: string;
  text: string;
  parts: number;
  /** Credits (domestic) or agorot (international) this message cost; refunded when it never left. */
  cost_credits: number;
  cost_agorot: number;
  state: MessageState;
  /** Delivery status from the catalogue (-1 submitted, 102 delivered, ...); null before submission. */
  status: number | null;
  status_at: number | null;
  attempts: number;
  next_attempt_at: number;
  lease_until: number | null;
  carrier: string | null;
  error: string | null;
  created_at: number;
  submitted_at: number | null;
}

export interface SendingTables {
  campaigns: CampaignTable;
  messages: MessageTable;
}
