// Tables of the operator's console: operators, their sessions and failed sign-ins, and the audit log.
import type { Generated } from 'kysely';

/** 'admin' changes anything; 'support' reads every page and changes nothing. */
export type OperatorRole = 'admin' | 'support';

export interface OperatorTable {
  id: Generated<number>;
  name: string;
  password_hash: string;
  role: OperatorRole;
  /** The TOTP secret, sealed (domain/sealed.ts); null until enrolled at the first sign-in. */
  totp_secret: string | null;
  /** The last TOTP step accepted (a code of it or an earlier step is refused). */
  totp_last_step: number | null;
  created_at: number;
}

export interface OperatorSessionTable {
  id: Generated<number>;
  /** SHA-256 (hex) of the session id in the cookie. */
  id_hash: string;
  operator_id: number;
  csrf: string;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
}

export interface OperatorLoginFailureTable {
  id: Generated<number>;
  name: string;
  address: string;
  failed_at: number;
}

export interface AuditLogTable {
  id: Generated<number>;
  at: number;
  /** The operator's name (the CLI's: the system user, or `cli`). */
  operator: string;
  /** 'console' or 'cli'. */
  via: string;
  /** The client address (the CLI's: `local`). */
  address: string;
  /** The operation's name (addCredits, suspendAccount, addCarrier, ...). */
  action: string;
  /** What it acted on: an account's username, a carrier's or route's name. */
  subject: string;
  /** JSON of the state before and after (null: none). */
  before: string | null;
  after: string | null;
}

export interface OperatorsTables {
  operators: OperatorTable;
  operator_sessions: OperatorSessionTable;
  operator_login_failures: OperatorLoginFailureTable;
  audit_log: AuditLogTable;
}
