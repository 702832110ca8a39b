// Tables of the web console: sessions and failed logins.
import type { Generated } from 'kysely';

export interface ConsoleSessionTable {
  id: Generated<number>;
  /** SHA-256 (hex) of the session id in the cookie; the id itself is never stored. */
  id_hash: string;
  account_id: number;
  /** The session's CSRF token, sent back in every form. */
  csrf: string;
  created_at: number;
  last_seen_at: number;
  /** Absolute end of the session (idle expiry is last_seen_at + the idle limit). */
  expires_at: number;
}

export interface ConsoleLoginFailureTable {
  id: Generated<number>;
  username: string;
  failed_at: number;
  /** The client address the sign-in came from ('' for rows older than the per-address count). */
  address: Generated<string>;
}

export interface ConsoleTables {
  console_sessions: ConsoleSessionTable;
  console_login_failures: ConsoleLoginFailureTable;
}
