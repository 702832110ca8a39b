// Which carriers Yona binds and where each destination goes: read from YONA_CARRIERS_FILE (JSON) and from the
// store (`yona admin add-carrier` / `add-route`), merged; routing by longest destination prefix.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../config.ts';
import { normalizePhone } from '../domain/phone.ts';
import type { Queryable } from '../store/db.ts';
import { listCarriers, listRoutes } from '../store/carriers.ts';
import type { SmppCarrierConfig } from './smpp/connector.ts';
import { isReceiptIdMode, RECEIPT_ID_MODES } from './smpp/ids.ts';
import { LONG_MESSAGE_MODES } from './smpp/payload.ts';
import { readCaBundle } from './smpp/tls.ts';

/** Timers used when a carrier's settings do not name them. */
export const CARRIER_TIMER_DEFAULTS = { enquireLinkMs: 30_000, responseTimeoutMs: 10_000, reconnectBaseMs: 500, reconnectMaxMs: 30_000 };

/** One route: destinations (international digits) starting with `prefix` go to `carrier`; '' matches all. */
export interface Route {
  prefix: string;
  carrier: string;
}

/** The carriers to bind and the routes between them. */
export interface CarrierSetup {
  carriers: SmppCarrierConfig[];
  routes: Route[];
}

const positive = z.number().int().positive();
const fileCarrier = z.object({
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
}).strict();
const fileSchema = z.object({
  carriers: z.array(fileCarrier).default([]),
  /** prefix -> carrier name; "" or "default" is the default route. */
  routes: z.record(z.string(), z.string()).default({}),
});

/** Reads a carriers JSON file; throws ConfigError naming the problem. */
export function readCarriersFile(path: string): CarrierSetup {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ConfigError(`YONA_CARRIERS_FILE ${path}: ${(err as Error).message}`);
  }
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
    const hint = keys.some((k) => k.includes('_')) ? ' (keys are camelCase, e.g. tlsCa, tlsServername, longMessages, receiptIds)' : '';
    throw new ConfigError(`YONA_CARRIERS_FILE ${path}: ${issue.path.join('.') || 'file'}: ${issue.message}${hint}`);
  }
  // A relative tlsCa is relative to the carriers file.
  const carriers = parsed.data.carriers.map((c) => checkTls({
    ...CARRIER_TIMER_DEFAULTS, ...dropUndefined(c), ...(c.tlsCa ? { tlsCa: resolve(dirname(path), c.tlsCa) } : {}),
  } as SmppCarrierConfig, `YONA_CARRIERS_FILE ${path}: carrier "${c.name}"`));
  const routes = Object.entries(parsed.data.routes).map(([prefix, carrier]) => ({ prefix: routePrefix(prefix), carrier }));
  return { carriers, routes };
}

/** Checks a carrier's TLS settings: tlsCa/tlsServername only with tls, and a readable PEM CA bundle. */
export function checkTls<T extends Pick<SmppCarrierConfig, 'tls' | 'tlsCa' | 'tlsServername'>>(carrier: T, where: string): T {
  if (!carrier.tls && (carrier.tlsCa || carrier.tlsServername)) throw new ConfigError(`${where}: tlsCa and tlsServername need tls on`);
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

/** A route prefix as stored: 'default' and '*' mean '' (every destination); a leading '+' is dropped. */
export function routePrefix(prefix: string): string {
  const p = prefix.trim();
  if (p === 'default' || p === '*') return '';
  return p.replace(/^\+/, '');
}

/** An inbound number in the one form account_numbers keeps: international digits for phones, else digits. */
export function normalizeNumber(input: string): string {
  const phone = normalizePhone(input, { allowInternational: true });
  if (phone.ok) return phone.e164;
  return input.replace(/[^\d]/g, '').replace(/^00(?=[1-9])/, '');
}

/** The carriers of the file (when YONA_CARRIERS_FILE is set) and of the store, with their routes. */
export async function loadCarrierSetup(db: Queryable, env: NodeJS.ProcessEnv = process.env): Promise<CarrierSetup> {
  const fromFile = env.YONA_CARRIERS_FILE ? readCarriersFile(env.YONA_CARRIERS_FILE) : { carriers: [], routes: [] };
  const stored = (await listCarriers(db)).map((row): SmppCarrierConfig => checkTls({
    ...CARRIER_TIMER_DEFAULTS,
    name: row.name, host: row.host, port: Number(row.port), systemId: row.system_id, password: row.password,
    systemType: row.system_type || undefined, bindMode: row.bind_mode === 'tx+rx' ? 'tx+rx' : 'transceiver',
    binds: Number(row.binds), windowSize: Number(row.window_size), maxSubmitsPerSecond: Number(row.max_tps), tls: Number(row.tls) === 1,
    tlsCa: row.tls_ca ?? undefined, tlsServername: row.tls_servername ?? undefined,
    longMessages: row.long_messages === 'payload' ? 'payload' : 'udh', receiptIds: storedReceiptIds(row.name, row.receipt_ids),
  }, `carrier "${row.name}" (yona admin add-carrier)`));
  const carriers = [...fromFile.carriers];
  for (const c of stored) {
    if (carriers.some((f) => f.name === c.name)) throw new ConfigError(`carrier "${c.name}" is defined both in YONA_CARRIERS_FILE and in the store`);
    carriers.push(c);
  }
  // File routes win over stored routes for the same prefix.
  const routes = new Map<string, string>((await listRoutes(db)).map((r) => [r.prefix, r.carrier]));
  for (const r of fromFile.routes) routes.set(r.prefix, r.carrier);
  return { carriers, routes: [...routes].map(([prefix, carrier]) => ({ prefix, carrier })) };
}

// A stored receipt_ids value, refused when it is not a known mode (the store was edited by hand).
function storedReceiptIds(carrier: string, value: string): SmppCarrierConfig['receiptIds'] {
  if (isReceiptIdMode(value)) return value;
  throw new ConfigError(`carrier "${carrier}" (yona admin add-carrier): receipt_ids must be one of ${RECEIPT_ID_MODES.join(', ')}, got "${value}"`);
}

/** Picks a carrier per destination: the longest matching route prefix, else the default route, else the first carrier. */
export class Router {
  private readonly routes: Route[];
  private readonly fallback: string | undefined;

  constructor(routes: Route[], carrierNames: string[]) {
    const known = new Set(carrierNames);
    for (const r of routes) {
      if (!known.has(r.carrier)) throw new ConfigError(`route "${r.prefix || 'default'}" names carrier "${r.carrier}", which is not configured`);
    }
    this.routes = [...routes].sort((a, b) => b.prefix.length - a.prefix.length);
    this.fallback = carrierNames[0];
  }

  /** The carrier name for a destination (international digits); undefined only when no carrier exists. */
  pick(destination: string): string | undefined {
    for (const r of this.routes) if (destination.startsWith(r.prefix)) return r.carrier;
    return this.fallback;
  }
}
