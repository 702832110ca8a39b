// Idempotency keys of sends (migration 0023).
export interface IdempotencyKeyTable {
  account_id: number;
  idem_key: string;
  /** SHA-256 of the request's operation and document, base64url. */
  request_hash: string;
  /** The reply as JSON once the first request ran; null while it runs. */
  reply: string | null;
  created_at: number;
}

export interface IdempotencyTables {
  idempotency_keys: IdempotencyKeyTable;
}
