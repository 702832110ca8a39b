// An SMPP carrier's settings as an operator writes them: the schema of its carriers-file entry and of its stored
// settings document (`yona admin add-carrier`), the defaults, and the TLS checks.
import { z } from 'zod';
import { ConfigError } from '../../domain/errors.ts';
import type { SmppCarrierConfig } from './carrier-config.ts';
import { RECEIPT_ID_MODES } from './ids.ts';
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
    downGraceMs: positive.optional(),
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
