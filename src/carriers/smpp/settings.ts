// An SMPP carrier's settings as an operator writes them: the carriers file's schema, the defaults, the TLS
// checks, and the stored form (`yona admin add-carrier`) read into the connector's config.
import { z } from 'zod';
import { ConfigError } from '../../domain/errors.ts';
import type { SmppCarrierConfig } from './carrier-config.ts';
import { isReceiptIdMode, RECEIPT_ID_MODES } from './ids.ts';
import { LONG_MESSAGE_MODES } from './payload.ts';
import { readCaBundle } from './tls.ts';

/** Timers used when a carrier's settings do not name them. */
export const CARRIER_TIMER_DEFAULTS = {
  enquireLinkMs: 30_000,
  responseTimeoutMs: 10_000,
  reconnectBaseMs: 500,
  reconnectMaxMs: 30_000,
};

const positive = z.number().int().positive();

/** One SMPP carrier in the carriers file (camelCase keys; `protocol` may say "smpp" or be left out). */
export const smppFileCarrier = z
  .object({
    protocol: z.literal('smpp').optional(),
    name: z.string().min(1),
    host: z.string().min(1),
    port: z.number().int().min(1).max(65535),
    systemId: z.string().min(1),
    password: z.string(),
    systemType: z.string().optional(),
    bindMode: z.enum(['transceiver', 'tx+rx']).default('transceiver'),
    binds: positive.default(1),
    windowSize: positive.default(10),
    maxSubmitsPerSecond: z.number().int().min(0).default(0),
    tls: z.boolean().default(false),
    tlsCa: z.string().min(1).optional(),
    tlsServername: z.string().min(1).optional(),
    longMessages: z.enum(LONG_MESSAGE_MODES).default('udh'),
    receiptIds: z.enum(RECEIPT_ID_MODES).default('as-is'),
    enquireLinkMs: positive.optional(),
    responseTimeoutMs: positive.optional(),
    reconnectBaseMs: positive.optional(),
    reconnectMaxMs: positive.optional(),
    queueTimeoutMs: positive.optional(),
  })
  .strict();

/** Checks a carrier's TLS settings: tlsCa/tlsServername only with tls, and a readable PEM CA bundle. */
export function checkTls<T extends Pick<SmppCarrierConfig, 'tls' | 'tlsCa' | 'tlsServername'>>(
  carrier: T,
  where: string,
): T {
  if (!carrier.tls && (carrier.tlsCa || carrier.tlsServername))
    throw new ConfigError(`${where}: tlsCa and tlsServername need tls on`);
  if (carrier.tlsCa) {
    try {
      readCaBundle(carrier.tlsCa);
    } catch (err) {
      throw new ConfigError(`${where}: ${(err as Error).message}`);
    }
  }
  return carrier;
}

function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** A file carrier's settings with the defaults filled in, checked (`where` names it in errors). */
export function smppConfigFromFile(c: z.output<typeof smppFileCarrier>, where: string): SmppCarrierConfig {
  return checkTls({ ...CARRIER_TIMER_DEFAULTS, ...dropUndefined(c), protocol: 'smpp' } as SmppCarrierConfig, where);
}

/** An SMPP carrier as the store keeps it (the carriers table's columns). */
export interface StoredSmppCarrier {
  name: string;
  host: string;
  port: number;
  system_id: string;
  password: string;
  system_type: string | null;
  bind_mode: string;
  binds: number;
  window_size: number;
  max_tps: number;
  tls: number;
  tls_ca: string | null;
  tls_servername: string | null;
  long_messages: string;
  receipt_ids: string;
}

/** A stored carrier's settings, checked; a value edited by hand into something unknown is a ConfigError. */
export function smppConfigFromStore(row: StoredSmppCarrier): SmppCarrierConfig {
  const where = `carrier "${row.name}" (yona admin add-carrier)`;
  if (!isReceiptIdMode(row.receipt_ids)) {
    throw new ConfigError(
      `${where}: receipt_ids must be one of ${RECEIPT_ID_MODES.join(', ')}, got "${row.receipt_ids}"`,
    );
  }
  return checkTls(
    {
      ...CARRIER_TIMER_DEFAULTS,
      protocol: 'smpp',
      name: row.name,
      host: row.host,
      port: Number(row.port),
      systemId: row.system_id,
      password: row.password,
      systemType: row.system_type || undefined,
      bindMode: row.bind_mode === 'tx+rx' ? 'tx+rx' : 'transceiver',
      binds: Number(row.binds),
      windowSize: Number(row.window_size),
      maxSubmitsPerSecond: Number(row.max_tps),
      tls: Number(row.tls) === 1,
      tlsCa: row.tls_ca ?? undefined,
      tlsServername: row.tls_servername ?? undefined,
      longMessages: row.long_messages === 'payload' ? 'payload' : 'udh',
      receiptIds: row.receipt_ids,
    },
    where,
  );
}
