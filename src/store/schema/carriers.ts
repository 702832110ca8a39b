// The carrier tables: configured carriers and routes, inbound numbers, the carrier message ids
// of submitted parts (how receipts find their message), receipts not matched yet, and inbound messages.
import type { Generated } from 'kysely';
import type { DeliveryStatus } from '../../domain/status.ts';

/** SMS parts a carrier took on one day (YONA_TIME_ZONE's calendar day, 'YYYY-MM-DD'). */
export interface CarrierDailyUsageTable {
  carrier: string;
  day: string;
  parts: number;
}

/** A carrier the operator added (`yona admin add-carrier`). */
export interface CarrierTable {
  id: Generated<number>;
  name: string;
  /** The protocol it speaks (carriers/index.ts). */
  protocol: string;
  /**
   * The protocol's settings as a JSON document (the carriers file's keys). Its secrets (the protocol's `secrets`:
   * a password) are sealed with the secret key, `sealed:v1....` (domain/sealed.ts); the connector opens them to
   * bind. Never logged, never shown by the CLI.
   */
  settings: string;
  created_at: number;
}

/** A route: the messages it matches (destination prefix and optional filters) and the carriers they go to. */
export interface CarrierRouteTable {
  id: Generated<number>;
  /** Destination prefix in international digits ('97250'); '' is the default route. */
  prefix: string;
  /** Username of the account (or reseller, for its sub-accounts) it is for; '' for every account. */
  account: Generated<string>;
  /** Sender it is for; '' for every sender. */
  source: Generated<string>;
  /** A channel's name (domain/channels.ts: 'sms', 'voice', ...); '' for every channel. */
  channel: Generated<string>;
  /** Carriers in failover order, each with an optional weight: 'a', 'a,b', 'a:3,b:1'. */
  carrier: string;
  created_at: number;
}

/** An inbound number owned by an account. */
export interface AccountNumberTable {
  id: Generated<number>;
  account_id: number;
  /** Inbound number, international digits for phone numbers (972...), else the digits as given (short codes). */
  number: string;
  created_at: number;
}

/** One submitted part: the carrier's message id, and the status its receipt gave. */
export interface CarrierMessageIdTable {
  carrier: string;
  carrier_message_id: string;
  message_id: number;
  /** 0-based part of the message this submit_sm carried. */
  part_index: number;
  /** Delivery status of this part from its receipt (null: none yet; -1 intermediate). */
  part_status: DeliveryStatus | null;
  created_at: number;
}

/** A receipt whose carrier message id was not known yet. */
export interface PendingReceiptTable {
  id: Generated<number>;
  carrier: string;
  carrier_message_id: string;
  /** Our delivery status, as the carrier's protocol mapped it (-1 intermediate). */
  status: DeliveryStatus;
  /** When the receipt arrived. */
  at: number;
  created_at: number;
  /** 1: a call that was never placed, to be refunded when its message is matched. */
  refund: Generated<number>;
  /** An answered call's playing time. */
  duration_ms: number | null;
  /** The carrier's own code for a failure (Meta's error code of a WhatsApp message), kept on the message. */
  carrier_error: Generated<string | null>;
}

/** An inbound SMS routed to an account (what `incoming` lists). */
export interface InboundMessageTable {
  id: Generated<number>;
  account_id: number;
  /** Sender, international digits (9725...). */
  phone: string;
  /** The account's number it arrived on. */
  dest: string;
  text: string;
  carrier: string;
  received_at: number;
  /** The channel it came on (domain/channels.ts stored name): 'sms', 'whatsapp'. */
  channel: Generated<string>;
}

/** One part of a concatenated inbound SMS whose other parts have not all arrived. */
export interface InboundPartTable {
  id: Generated<number>;
  carrier: string;
  phone: string;
  dest: string;
  /** The UDH concatenation reference, part count and this part's number (from 1). */
  ref: number;
  total: number;
  seq: number;
  text: string;
  received_at: number;
}

/** An inbound SMS to a number no account owns. */
export interface UnroutedInboundTable {
  id: Generated<number>;
  phone: string;
  /** The destination as the carrier gave it (no account owns it). */
  dest: string;
  text: string;
  carrier: string;
  received_at: number;
}

/** The carrier tables, merged into the Database type. */
export interface CarriersTables {
  carriers: CarrierTable;
  carrier_daily_usage: CarrierDailyUsageTable;
  carrier_routes: CarrierRouteTable;
  account_numbers: AccountNumberTable;
  carrier_message_ids: CarrierMessageIdTable;
  pending_receipts: PendingReceiptTable;
  inbound_messages: InboundMessageTable;
  unrouted_inbound: UnroutedInboundTable;
  inbound_parts: InboundPartTable;
}
