// The settings of one SMPP carrier account, as the config file, the store and tests give them.
import type { ConnectionOptions } from 'node:tls';
import type { CarrierConfigBase } from '../types.ts';
import type { ReceiptIdMode } from './ids.ts';
import type { LongMessageMode } from './payload.ts';
import type { SmppLogger } from './session.ts';

/** Settings of one SMPP carrier account. */
export interface SmppCarrierConfig extends CarrierConfigBase {
  protocol?: 'smpp';
  host: string;
  port: number;
  systemId: string;
  password: string;
  systemType?: string;
  /** One bind_transceiver per bind, or a bind_transmitter + bind_receiver pair per bind. */
  bindMode: 'transceiver' | 'tx+rx';
  binds: number;
  /** Unanswered submit_sm allowed per session. */
  windowSize: number;
  /** Token-bucket rate across all sessions; 0 means unlimited. */
  maxSubmitsPerSecond: number;
  tls: boolean;
  /** Path of the PEM CA bundle trusted for this carrier instead of the system CAs (read into tlsOptions.ca). */
  tlsCa?: string;
  /** Name the carrier's certificate is checked against (and sent as SNI) when it differs from host. */
  tlsServername?: string;
  tlsOptions?: Omit<ConnectionOptions, 'socket'>;
  /** Messages longer than one SMS: UDH-concatenated parts (default), or one submit_sm with message_payload. */
  longMessages?: LongMessageMode;
  /** Base of the ids in submit_sm_resp and in receipts when they differ (see ids.ts); as-is by default. */
  receiptIds?: ReceiptIdMode;
  enquireLinkMs: number;
  responseTimeoutMs: number;
  reconnectBaseMs: number;
  reconnectMaxMs: number;
  /** How long a submit may wait for a bound session with a free slot before failing transiently (30 s). */
  queueTimeoutMs?: number;
  /**
   * How long the carrier may have no bind able to submit before its queued submits, and those that come after,
   * fail at once so that the next carrier on their route takes them (5 s).
   */
  downGraceMs?: number;
  /** Retries of one PDU answered ESME_RTHROTTLED / ESME_RMSGQFUL before giving up transiently (10). */
  throttleRetries?: number;
  /** First pause after a throttle answer, doubled per retry up to 5 s (100 ms). */
  throttlePauseMs?: number;
  logger?: SmppLogger;
}
