// Ingress events (migration 0033): what carriers posted to their webhooks, kept for the receipts role.
import type { Generated } from 'kysely';

/** One receipt or inbound message a carrier posted, stored before its webhook was answered. */
export interface IngressEventTable {
  id: Generated<number>;
  /** The protocol and carrier of the webhook's address (/webhooks/<protocol>/<carrier>). */
  protocol: string;
  carrier: string;
  /** 'receipt' or 'inbound'. */
  kind: string;
  /** What makes the event one (the carrier's event id, or a digest of its content): a repeat is stored once. */
  event_key: string;
  /** The neutral event (a Receipt or an InboundSms) as JSON. */
  event: string;
  received_at: number;
  /** A node processing it holds it until then (0: free). */
  lease_until: Generated<number>;
  /** When it was processed (null: waiting). */
  processed_at: number | null;
}

export interface IngressTables {
  ingress_events: IngressEventTable;
}
