// Tables of the carriers issue: configured SMPP carriers and routes, inbound numbers, the carrier message ids
// of submitted parts (how receipts find their message), receipts not matched yet, and inbound messages.
import type { Generated } from 'kysely';
import type { DeliveryStatus } from '../../domain/status.ts';

/** An SMPP carrier the operator added. */
export interface CarrierTable {
  id: Generated<number>;
  name: string;
  host: string;
  port: number;
  system_id: string;
  /** Kept in clear: the connector must send it in bind_*. Never logged, never shown by the CLI. */
  password: string;
  system_type: string;
  /** 'transceiver' or 'tx+rx'. */
  bind_mode: string;
  binds: number;
  window_size: number;
  /** Submits per second across all binds; 0 is unlimited. */
  max_tps: number;
  tls: number;
  /** Long messages as 'udh' parts or one 'payload' (message_payload) submit_sm. */
  long_messages: string;
  /** Path of a PEM CA bundle trusted instead of the system CAs; null: system CAs. */
  tls_ca: string | null;
  /** Name the carrier's certificate is checked against; null: the host. */
  tls_servername: string | null;
  /** Base of the carrier's message ids: 'as-is', 'submit-hex', 'receipt-hex' or 'both-hex' (see smpp/ids.ts). */
  receipt_ids: Generated<string>;
  created_at: number;
}

/** A destination prefix and the carrier it goes to. */
export interface CarrierRouteTable {
  id: Generated<number>;
  /** Destination prefix in international digits ('97250'); '' is the default route. */
  prefix: string;
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
  carrier_routes: CarrierRouteTable;
  account_numbers: AccountNumberTable;
  carrier_message_ids: CarrierMessageIdTable;
  pending_receipts: PendingReceiptTable;
  inbound_messages: InboundMessageTable;
  unrouted_inbound: UnroutedInboundTable;
  inbound_parts: InboundPartTable;
}
