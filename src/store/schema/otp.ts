// Tables of one-time codes: the codes (only a hash of each) and the failed validations per phone.
import type { Generated } from 'kysely';

export interface OtpCodeTable {
  id: Generated<number>;
  account_id: number;
  app_id: number;
  /** International form without '+'. */
  phone: string;
  /** Keyed hash of the code with its own salt (domain/otp.ts); the code itself is never stored. */
  code_hash: string;
  max_tries: number;
  /** Validation attempts made against this code. */
  attempts: Generated<number>;
  expires_at: number;
  created_at: number;
  used_at: number | null;
  /** Set when a newer code for the same phone and app replaced this one. */
  replaced_at: number | null;
  /** The campaign whose message carried the code. */
  campaign_id: number | null;
  /** What carried it: 'sms' or 'whatsapp' (validate_otp's service_type). */
  service_type: Generated<string>;
}

export interface OtpFailureTable {
  id: Generated<number>;
  account_id: number;
  phone: string;
  failed_at: number;
}

export interface OtpTables {
  otp_codes: OtpCodeTable;
  otp_failures: OtpFailureTable;
}
