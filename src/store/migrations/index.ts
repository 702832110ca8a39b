// Versioned migrations, run at start (engine/migrate.ts). Add a file per version and list it here; never edit a shipped one.
import type { Kysely } from 'kysely';
import type { Dialect } from '../types.ts';
import * as m0001 from './0001_foundation.ts';
import * as m0002 from './0002_sending.ts';
import * as m0003 from './0003_audience.ts';
import * as m0004 from './0004_carriers.ts';
import * as m0005 from './0005_push.ts';
import * as m0006 from './0006_carrier_options.ts';
import * as m0007 from './0007_birthday_once_per_phone.ts';
import * as m0008 from './0008_inbound_parts.ts';
import * as m0009 from './0009_carrier_receipt_ids.ts';
import * as m0010 from './0010_partial_message_indexes.ts';
import * as m0011 from './0011_one_time_codes.ts';
import * as m0012 from './0012_console_sessions.ts';
import * as m0013 from './0013_pending_receipt_status.ts';
import * as m0014 from './0014_voice_calls.ts';
import * as m0015 from './0015_legacy_password.ts';
import * as m0016 from './0016_nodes.ts';
import * as m0017 from './0017_retention.ts';
import * as m0018 from './0018_pending_receipt_call_outcome.ts';
import * as m0019 from './0019_time_partitions.ts';
import * as m0020 from './0020_carrier_settings.ts';
import * as m0021 from './0021_route_filters.ts';
import * as m0022 from './0022_usernames_unique_any_case.ts';
import * as m0023 from './0023_idempotency_keys.ts';
import * as m0024 from './0024_message_log_indexes.ts';
import * as m0025 from './0025_console_account_settings.ts';
import * as m0026 from './0026_carrier_limits.ts';
import * as m0028 from './0028_node_carrier_health.ts';
import * as m0029 from './0029_console_second_step.ts';
import * as m0030 from './0030_store_version.ts';
import * as m0031 from './0031_operator_account_state.ts';
import * as m0032 from './0032_push_attempts_by_event.ts';
import * as m0033 from './0033_ingress_events.ts';
import * as m0034 from './0034_smpp_server.ts';
import * as m0040 from './0040_whatsapp.ts';
import * as m0041 from './0041_message_template.ts';
import * as m0044 from './0044_whatsapp_prices.ts';
import * as m0045 from './0045_whatsapp_templates.ts';
import * as m0046 from './0046_whatsapp_fallbacks.ts';
import * as m0047 from './0047_otp_service_type.ts';
import * as m0048 from './0048_operators.ts';
import * as m0049 from './0049_operator_message_log.ts';
import * as m0052 from './0052_prices.ts';
import * as m0053 from './0053_sender_requests.ts';
import * as m0054 from './0054_alerts.ts';
import * as m0058 from './0058_operator_dashboard.ts';
import * as m0060 from './0060_operator_message_log_filters.ts';

type VersionedMigration = { up(db: Kysely<any>, dialect: Dialect): Promise<void> };

/** Every migration by name, in order. */
export const MIGRATIONS: Record<string, VersionedMigration> = {
  '0001_foundation': m0001,
  '0002_sending': m0002,
  '0003_audience': m0003,
  '0004_carriers': m0004,
  '0005_push': m0005,
  '0006_carrier_options': m0006,
  '0007_birthday_once_per_phone': m0007,
  '0008_inbound_parts': m0008,
  '0009_carrier_receipt_ids': m0009,
  '0010_partial_message_indexes': m0010,
  '0011_one_time_codes': m0011,
  '0012_console_sessions': m0012,
  '0013_pending_receipt_status': m0013,
  '0014_voice_calls': m0014,
  '0015_legacy_password': m0015,
  '0016_nodes': m0016,
  '0017_retention': m0017,
  '0018_pending_receipt_call_outcome': m0018,
  '0019_time_partitions': m0019,
  '0020_carrier_settings': m0020,
  '0021_route_filters': m0021,
  '0022_usernames_unique_any_case': m0022,
  '0023_idempotency_keys': m0023,
  '0024_message_log_indexes': m0024,
  '0025_console_account_settings': m0025,
  '0026_carrier_limits': m0026,
  '0028_node_carrier_health': m0028,
  '0029_console_second_step': m0029,
  '0030_store_version': m0030,
  '0031_operator_account_state': m0031,
  '0032_push_attempts_by_event': m0032,
  '0033_ingress_events': m0033,
  '0034_smpp_server': m0034,
  '0040_whatsapp': m0040,
  '0041_message_template': m0041,
  '0044_whatsapp_prices': m0044,
  '0045_whatsapp_templates': m0045,
  '0046_whatsapp_fallbacks': m0046,
  '0047_otp_service_type': m0047,
  '0048_operators': m0048,
  '0049_operator_message_log': m0049,
  '0052_prices': m0052,
  '0053_sender_requests': m0053,
  '0054_alerts': m0054,
  '0058_operator_dashboard': m0058,
  '0060_operator_message_log_filters': m0060,
};
