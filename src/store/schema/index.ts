// Table types for Kysely. Times are epoch milliseconds (bigint), flags are 0/1 integers, money is integer.
import type { Generated } from 'kysely';
import type { AudienceTables } from './audience.ts';
import type { CarriersTables } from './carriers.ts';
import type { ConsoleTables } from './console.ts';
import type { IdempotencyTables } from './idempotency.ts';
import type { IngressTables } from './ingress.ts';
import type { NodesTables } from './nodes.ts';
import type { OperatorsTables } from './operators.ts';
import type { OtpTables } from './otp.ts';
import type { PricesTables } from './prices.ts';
import type { PushTables } from './push.ts';
import type { SenderTables } from './senders.ts';
import type { AlertTables } from './alerts.ts';
import type { SendingTables } from './sending.ts';
import type { WhatsappTables } from './whatsapp.ts';
import type { WhatsappSendingTables } from './whatsapp-sending.ts';
import type { SmppTables } from './smpp.ts';

export interface AccountTable {
  id: Generated<number>;
  username: string;
  name: string;
  password_hash: string;
  /** Domestic SMS credits. */
  credits: number;
  /** International balance in agorot (1/100 shekel). */
  intl_agorot: number;
  is_reseller: number;
  parent_id: number | null;
  time_zone: string;
  /** 1 when the IP allowlist is enforced for this account. */
  ip_check: number;
  /** The phone a sub-account's one-time codes for console login go to (addSub `otpPhone`). */
  otp_phone: Generated<string | null>;
  /** 1 when send_otp may go to international numbers. */
  otp_international: Generated<number>;
  /** 1 when a call without a bearer token may authenticate with `user.username` and `user.password`. */
  legacy_password: Generated<number>;
  /** Wrong passwords since the last right one, and when the lockout they caused ends. */
  legacy_failures: Generated<number>;
  legacy_locked_until: Generated<number | null>;
  created_at: number;
  /** The console's low-balance warning shows below this many credits (null: never). */
  low_balance_credits: Generated<number | null>;
  /** When a reseller suspended this sub-account (null: active): its tokens and console sign-in are refused. */
  suspended_at: Generated<number | null>;
  /** The console's two-factor secret, sealed (domain/sealed.ts); null: two-factor is off. */
  totp_secret: Generated<string | null>;
  /** JSON array of the unused recovery codes' SHA-256 hashes. */
  totp_recovery: Generated<string | null>;
  /** The last TOTP time step accepted at sign-in (a code of it or an earlier step is refused). */
  totp_last_step: Generated<number | null>;
  /** Who suspended it: 'reseller', 'operator', or null (a reseller's suspension made before this column). */
  suspended_by: Generated<string | null>;
  /** The operator's reason for its suspension (shown to the operator only). */
  suspension_reason: Generated<string | null>;
  /** When the operator closed it (null: open): refused everywhere, its data kept. */
  closed_at: Generated<number | null>;
  /** 1 when its push URLs may reach private and loopback addresses. */
  push_allow_private: Generated<number>;
}

export interface AccountIpTable {
  id: Generated<number>;
  account_id: number;
  cidr: string;
  created_at: number;
}

export interface ApiTokenTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  token_hash: string;
  /** Last four characters of the token, for the masked read-back. */
  last4: string;
  created_at: number;
  expires_at: number;
  /** Set when a sixth token retired this one (status 11 from then on). */
  superseded_at: number | null;
}

export interface LedgerEntryTable {
  id: Generated<number>;
  account_id: number;
  /** 'credits' or 'international' (agorot). */
  currency: string;
  /** Signed amount: negative debits, positive credits. */
  amount: number;
  reason: string;
  ref_type: string | null;
  ref_id: number | null;
  created_at: number;
}

export interface VerifiedSenderTable {
  id: Generated<number>;
  account_id: number;
  source: string;
  /** How it was verified: 'operator', 'sms-link', 'landline-call'. */
  method: string;
  verified_at: number;
}

export interface Database
  extends SendingTables,
    AudienceTables,
    CarriersTables,
    PushTables,
    OtpTables,
    ConsoleTables,
    NodesTables,
    IdempotencyTables,
    IngressTables,
    WhatsappTables,
    WhatsappSendingTables,
    SmppTables,
    OperatorsTables,
    PricesTables,
    SenderTables,
    AlertTables {
  accounts: AccountTable;
  account_ips: AccountIpTable;
  api_tokens: ApiTokenTable;
  ledger_entries: LedgerEntryTable;
  verified_senders: VerifiedSenderTable;
}
