// Which carriers Yona binds: read from YONA_CARRIERS_FILE (JSON; each entry read by its protocol, the default
// protocol when it names none) and from the store (`yona admin add-carrier` / `add-route`), merged, with their routes.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { carrierChannel, carrierFromStore, carrierProtocol } from '../carriers/index.ts';
import { carrierLimitsSchema, takeCarrierLimits } from '../carriers/limits.ts';
import type { CarrierConfigBase } from '../carriers/types.ts';
import { DEFAULT_CHANNEL, isChannel } from '../domain/channels.ts';
import { ConfigError } from '../domain/errors.ts';
import type { Queryable } from '../store/engine/db.ts';
import { listCarriers, listRoutes } from '../store/carriers.ts';
import { routePrefix, type Route } from './routing.ts';

/** The carriers to bind and the routes between them. */
export interface CarrierSetup {
  carriers: CarrierConfigBase[];
  routes: Route[];
}

const fileSchema = z.object({
  carriers: z.array(z.looseObject({ protocol: z.string().optional() })).default([]),
  /** prefix -> carrier list ("a", "a,b", "a:3,b:1"); "" or "default" is the default route. */
  routes: z.record(z.string(), z.string()).default({}),
});

function fileProblem(path: string, issue: z.core.$ZodIssue, at: Array<PropertyKey>): ConfigError {
  const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
  const hint = keys.some((k) => k.includes('_'))
    ? ' (keys are camelCase, e.g. tlsCa, tlsServername, longMessages, receiptIds)'
    : '';
  return new ConfigError(
    `YONA_CARRIERS_FILE ${path}: ${[...at, ...issue.path].join('.') || 'file'}: ${issue.message}${hint}`,
  );
}

/** Reads a carriers JSON file; throws ConfigError naming the problem. */
export function readCarriersFile(path: string): CarrierSetup {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ConfigError(`YONA_CARRIERS_FILE ${path}: ${(err as Error).message}`);
  }
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) throw fileProblem(path, parsed.error.issues[0], []);
  const carriers = parsed.data.carriers.map((entry, i) => {
    const where = `YONA_CARRIERS_FILE ${path}: carrier "${String((entry as { name?: unknown }).name ?? i)}"`;
    const protocol = carrierProtocol(entry.protocol, where);
    // The settings every protocol shares (daily cap, cost per part) are read apart from the protocol's own.
    const { limits, rest } = takeCarrierLimits(entry);
    const common = carrierLimitsSchema.safeParse(limits);
    if (!common.success) throw fileProblem(path, common.error.issues[0], ['carriers', i]);
    // A protocol without a settings schema takes its entry as it is.
    if (!protocol.settings) return { ...rest, ...common.data } as CarrierConfigBase;
    const one = protocol.settings.schema.safeParse(rest);
    if (!one.success) throw fileProblem(path, one.error.issues[0], ['carriers', i]);
    // A relative tlsCa is relative to the carriers file.
    const data = one.data as { tlsCa?: string };
    return {
      ...protocol.settings.toConfig(data.tlsCa ? { ...data, tlsCa: resolve(dirname(path), data.tlsCa) } : data, where),
      ...common.data,
    };
  });
  const routes = Object.entries(parsed.data.routes).map(([prefix, carrier]) => ({
    prefix: routePrefix(prefix),
    carrier,
  }));
  return { carriers, routes };
}

/**
 * The carriers of the file (YONA_CARRIERS_FILE, when set) and of the store, with their routes; `key` opens the
 * secrets the store keeps sealed (the node's secret key, read only when there is one to open).
 */
export async function loadCarrierSetup(
  db: Queryable,
  carriersFile: string | undefined,
  key: () => Buffer,
): Promise<CarrierSetup> {
  const fromFile = carriersFile ? readCarriersFile(carriersFile) : { carriers: [], routes: [] };
  const stored = (await listCarriers(db)).map((row) => carrierFromStore(row, key));
  const carriers = [...fromFile.carriers];
  for (const c of stored) {
    if (carriers.some((f) => f.name === c.name))
      throw new ConfigError(`carrier "${c.name}" is defined both in YONA_CARRIERS_FILE and in the store`);
    carriers.push(c);
  }
  // File routes win over stored routes of the same prefix with no filter.
  const fileRoutes = new Set(fromFile.routes.map((r) => r.prefix));
  const routes: Route[] = [];
  for (const r of await listRoutes(db)) {
    const filtered = r.account !== '' || r.source !== '' || r.channel !== '';
    if (!filtered && fileRoutes.has(r.prefix)) continue;
    routes.push({
      prefix: r.prefix,
      carrier: r.carrier,
      ...(r.account ? { account: r.account } : {}),
      ...(r.source ? { source: r.source } : {}),
      ...(isChannel(r.channel) ? { channel: r.channel } : {}),
    });
  }
  routes.push(...fromFile.routes);
  return { carriers, routes };
}

/**
 * A configured carrier that texts go to, or undefined when texts go only to the bundled simulator (which
 * `yona serve` binds when no carrier is configured).
 */
export async function liveTextCarrier(
  db: Queryable,
  carriersFile: string | undefined,
  key: () => Buffer,
): Promise<string | undefined> {
  const { carriers } = await loadCarrierSetup(db, carriersFile, key);
  return carriers.find((c) => carrierChannel(c.protocol) === DEFAULT_CHANNEL)?.name;
}
