// Tables of the send path: campaigns, one message row per recipient (the dispatcher's queue), short links
// with their clicks, and pending sender verifications.
import type { Generated } from 'kysely';
import type { DeliveryStatus } from '../../domain/status.ts';
import type { LifecycleState } from '../../domain/lifecycle.ts';

/** Campaign states: scheduled -> queued -> sending -> sent, or scheduled -> cancelled. */
export type CampaignState = 'scheduled' | 'queued' | 'sending' | 'sent' | 'cancelled';

/**
 * Message states: scheduled (its campaign is not due) -> queued (awaiting the dispatcher) -> submitting
 * (claimed under a lease) -> submitted (carrier accepted; awaiting receipt) -> done (final delivery status);
 * or skipped (blocked / temp_bl at dispatch), failed (permanent carrier failure), cancelled: the lifecycle's
 * states (domain/lifecycle.ts decides the moves between them).
 */
export type MessageState = LifecycleState;

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
  status: DeliveryStatus | null;
  status_at: number | null;
  attempts: number;
  next_attempt_at: number;
  lease_until: number | null;
  carrier: string | null;
  error: string | null;
  created_at: number;
  submitted_at: number | null;
  /** Code of the removal link in this message (`/u/:code`, add_unsubscribe 3); null otherwise. */
  unsubscribe_code: Generated<string | null>;
  /** 1 for messages the dispatcher's priority lane takes ahead of campaign traffic (one-time codes). */
  priority: Generated<number>;
  /** A secret the text's `[code]` stands for, encrypted (domain/sealed.ts); cleared once the message left. */
  sealed: Generated<string | null>;
  /** Its channel's stored name (domain/channels.ts): 'sms' (a text), 'call' (the text spoken in a voice call), ... */
  channel: Generated<string>;
  /** For a call: how it is spoken, JSON `{voice, rate, repeat}`. */
  spoken: Generated<string | null>;
  /** For a template payload (WhatsApp): JSON `{name, language, parameters}`; null: the text is sent as it is. */
  template: Generated<string | null>;
  /** For an answered call: the seconds its message played. */
  call_seconds: Generated<number | null>;
  /** What the carrier that took it charges, in thousandths of an agora (null: the carrier has no costPerPart). */
  carrier_cost: Generated<number | null>;
  /** The carrier's own code for its failure (Meta's error code of a WhatsApp message); null for none. */
  carrier_error: Generated<string | null>;
}

export interface ShortLinkTable {
  id: Generated<number>;
  /** The unguessable code in `/l/:code`. */
  code: string;
  account_id: number;
  campaign_id: number;
  /** The caller's `id` attribute of the link (what `[id]` in the message named). */
  link_key: string;
  target: string;
  clicks: number;
  created_at: number;
}

export interface LinkClickTable {
  id: Generated<number>;
  short_link_id: number;
  clicked_at: number;
}

export interface SenderVerificationTable {
  id: Generated<number>;
  account_id: number;
  /** The number in international form, and the `source` it becomes once verified (national form). */
  phone: string;
  source: string;
  /** 'mobile' (verified by following `/v/:code`) or 'landline' (verified by the operator after a call). */
  kind: string;
  /** The unguessable code in `/v/:code`; null for landlines. */
  code: string | null;
  created_at: number;
  expires_at: number;
  verified_at: number | null;
}

/** Phones known to refuse texts (filtered, "Kosher" handsets): a voice send of type 2 calls them instead. */
export interface FilteredPhoneTable {
  /** International form. */
  phone: string;
  /** 'receipt' (a text came back 15) or 'operator' (imported). */
  source: string;
  created_at: number;
}

export interface SendingTables {
  campaigns: CampaignTable;
  messages: MessageTable;
  short_links: ShortLinkTable;
  link_clicks: LinkClickTable;
  sender_verifications: SenderVerificationTable;
  filtered_phones: FilteredPhoneTable;
}
