// Sender requests and reserved sender names (migration 0053).
import type { Generated } from 'kysely';

/** A sender name a customer asked for, and the operator's decision. */
export interface SenderRequestTable {
  id: Generated<number>;
  account_id: number;
  source: string;
  /** Why the customer asks for it (shown to the operator). */
  reason: string;
  /** 'pending', 'approved' or 'rejected'. */
  state: string;
  /** The operator's reason for a rejection (shown to the customer). */
  decision_reason: string | null;
  /** Who decided: the operator's name, or 'cli' for `yona admin`. */
  decided_by: string | null;
  requested_at: number;
  decided_at: number | null;
}

/** A reserved sender name pattern (domain/sender-names.ts). */
export interface ReservedSenderTable {
  pattern: string;
  created_at: number;
}

export interface SenderTables {
  sender_requests: SenderRequestTable;
  reserved_senders: ReservedSenderTable;
}
