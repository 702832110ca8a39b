// The SMPP server's tables (migration 0034): credentials and limits per account, submits that came over SMPP,
// the deliver_sm outbox and the live binds.
import type { Generated } from 'kysely';

/** An account's SMPP credentials and limits (a row exists once `yona admin smpp-password` set a password). */
export interface SmppAccountTable {
  account_id: number;
  /** argon2id hash of the bind password (at most 8 characters, SMPP v3.4). */
  password_hash: string;
  /** 1: binds only over the TLS listener. */
  tls_only: Generated<number>;
  /** Binds at once over every node. */
  max_binds: Generated<number>;
  /** submit_sm (and submit_multi) per second over all its binds on one node; 0: no limit. */
  submits_per_second: Generated<number>;
  /** Requests a bind may have unanswered at once. */
  window_size: Generated<number>;
  /** Failed binds since the last good one, and when the lockout they caused ends. */
  failed_binds: Generated<number>;
  locked_until: Generated<number | null>;
  updated_at: number;
}

/** A campaign that came over SMPP: what its receipts need. */
export interface SmppSubmitTable {
  campaign_id: number;
  account_id: number;
  /** The submit's registered_delivery: bits 0-1 ask for a receipt (1: any final outcome, 2: failures only). */
  registered_delivery: number;
  source: string;
  /** The first 20 characters of the text (the receipt's `text:`). */
  text_head: string;
  submitted_at: number;
  validity_until: number | null;
}

/** A deliver_sm waiting for one of the account's receiver binds (receipts and inbound texts). */
export interface SmppOutboxTable {
  id: Generated<number>;
  account_id: number;
  /** 'receipt' or 'mo'. */
  kind: string;
  /** What makes it one (the message and its status, or the inbound message): a repeat is stored once. */
  event_key: string;
  /** The deliver_sm's content (SmppOutboxPayload) as JSON. */
  payload: string;
  /** Dropped unsent once older than the receipt window. */
  created_at: number;
  /** Sent (again) from then: a node sending it moves it forward by the time it waits for deliver_sm_resp. */
  next_attempt_at: number;
  attempts: Generated<number>;
}

/** One bind live now, on some node. */
export interface SmppBindTable {
  id: string;
  account_id: number;
  node: string;
  /** 'transmitter', 'receiver' or 'transceiver'. */
  bind_type: string;
  remote_address: string;
  tls: Generated<number>;
  since: number;
  submits: Generated<number>;
  /** Over the last seconds, as its node last wrote it. */
  submits_per_second: Generated<number>;
  /** Its node's last refresh: a row not refreshed for a while belongs to a node that died. */
  seen_at: number;
}

export interface SmppTables {
  smpp_accounts: SmppAccountTable;
  smpp_submits: SmppSubmitTable;
  smpp_outbox: SmppOutboxTable;
  smpp_binds: SmppBindTable;
}
