// Settings every carrier may have, whatever its protocol: a daily cap on the SMS parts it takes and what one part
// costs. They are read beside the protocol's own settings (the carriers file, the store's settings document and
// `yona admin add-carrier --daily-cap N --cost-per-part AGOROT`), and the protocol never sees them.
import type { ParseArgsConfig } from 'node:util';
import { z } from 'zod';
import { ConfigError } from '../domain/errors.ts';
import type { CliValues } from './protocol-cli.ts';

/** The keys of the common settings, as the carriers file and the settings document write them. */
export const LIMIT_KEYS = ['dailyCap', 'costPerPart'] as const;

/** At most three decimals of an agora (what the store keeps per message: thousandths of an agora). */
const costPerPart = z
  .number()
  .min(0)
  .max(1_000_000)
  .refine((n) => Number.isInteger(Math.round(n * 1000)) && Math.abs(n * 1000 - Math.round(n * 1000)) < 1e-6, {
    message: 'at most three decimals of an agora',
  });

/** The common settings' schema. */
export const carrierLimitsSchema = z
  .object({
    /** SMS parts the carrier takes per day (YONA_TIME_ZONE's calendar day); past it, traffic goes to the next carrier. */
    dailyCap: z.number().int().min(1).max(1_000_000_000_000).optional(),
    /** What the carrier charges per SMS part, in agorot (up to three decimals). */
    costPerPart: costPerPart.optional(),
  })
  .strict();

export type CarrierLimits = z.output<typeof carrierLimitsSchema>;

/** Splits a carrier entry into its common settings and the rest (the protocol's). */
export function takeCarrierLimits<T extends Record<string, unknown>>(
  entry: T,
): { limits: Record<string, unknown>; rest: T } {
  const limits: Record<string, unknown> = {};
  const rest: Record<string, unknown> = { ...entry };
  for (const key of LIMIT_KEYS) {
    if (key in rest) {
      if (rest[key] !== undefined) limits[key] = rest[key];
      delete rest[key];
    }
  }
  return { limits, rest: rest as T };
}

/** The common settings of an entry, checked; throws ConfigError naming the setting (`where` names the carrier). */
export function readCarrierLimits(limits: Record<string, unknown>, where: string): CarrierLimits {
  const parsed = carrierLimitsSchema.safeParse(limits);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`${where}: ${issue.path.join('.') || 'settings'}: ${issue.message}`);
  }
  return parsed.data;
}

/** Their options on `yona admin add-carrier`, for every protocol. */
export const LIMIT_OPTIONS: NonNullable<ParseArgsConfig['options']> = {
  'daily-cap': { type: 'string' },
  'cost-per-part': { type: 'string' },
};

/** The usage words of those options. */
export const LIMIT_USAGE = '[--daily-cap PARTS] [--cost-per-part AGOROT]';

/** The settings document's common keys from the options (absent options leave them out). */
export function limitSettings(values: CliValues): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const cap = values['daily-cap'];
  if (typeof cap === 'string') {
    if (!/^\d{1,13}$/.test(cap) || Number(cap) < 1)
      throw new ConfigError(`--daily-cap must be a whole number of SMS parts, at least 1, got "${cap}"`);
    out.dailyCap = Number(cap);
  }
  const cost = values['cost-per-part'];
  if (typeof cost === 'string') {
    if (!/^\d{1,7}(\.\d{1,3})?$/.test(cost))
      throw new ConfigError(`--cost-per-part must be agorot with at most three decimals, like 2.75, got "${cost}"`);
    out.costPerPart = Number(cost);
  }
  return out;
}

/** What one part costs in thousandths of an agora (the unit messages.carrier_cost keeps). */
export function costPerPartMilli(limits: CarrierLimits): number | undefined {
  return limits.costPerPart === undefined ? undefined : Math.round(limits.costPerPart * 1000);
}
