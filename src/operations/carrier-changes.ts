// The operator's carriers and routes in the store, as internal operations of the operator's own (`yona admin
// add-carrier | remove-carrier | add-route | remove-route` and the console's /admin/carriers and /admin/routes):
// running nodes apply a change within seconds (delivery/carriers.ts reloads the store's setup), no restart. Each
// is audited by the runner, the carrier's settings with its secrets hidden.
import { z } from 'zod';
import { carrierSecrets, readCarrierSettings } from '../carriers/index.ts';
import { ApiError, ConfigError } from '../domain/errors.ts';
import { sealFields } from '../domain/sealed.ts';
import { statusMessage } from '../domain/status.ts';
import { sealingKey } from '../secret-key.ts';
import { deleteCarrier, deleteRoute, listCarriers, listRoutes, setRoute, upsertCarrier } from '../store/carriers.ts';
import type { Queryable } from '../store/engine/db.ts';
import { auditedInput } from './audit.ts';
import type { OperatorOperation } from './types.ts';

const ok = { status: 0 as const, message: statusMessage(0) };
const refuse = (message: string): never => {
  throw new ApiError(2, message);
};

/** A carrier as the audit log shows it: protocol and settings, secrets hidden. */
async function carrierState(db: Queryable, name: string): Promise<unknown> {
  const row = (await listCarriers(db)).find((c) => c.name === name);
  if (!row) return null;
  const settings = JSON.parse(row.settings) as Record<string, unknown>;
  const hidden = new Set(carrierSecrets(row.protocol));
  return {
    protocol: row.protocol,
    settings: auditedInput(
      Object.fromEntries(Object.entries(settings).map(([k, v]) => [k, hidden.has(k) ? '(hidden)' : v])),
    ),
  };
}

const setCarrierInput = z.object({
  name: z.string(),
  protocol: z.string(),
  settings: z.record(z.string(), z.unknown()),
});

/** Adds a carrier, or replaces its protocol and settings; a setting its protocol refuses is refused (2). */
export const setCarrier: OperatorOperation<typeof setCarrierInput, z.ZodObject<{ created: z.ZodBoolean }>> = {
  names: ['setCarrier'],
  internal: true,
  input: setCarrierInput,
  reply: z.object({ created: z.boolean() }),
  audit: { subject: (i) => `carrier ${i.name}`, state: (db, i) => carrierState(db, i.name) },
  async handler(ctx, c) {
    if (!/^[\w.-]{1,40}$/.test(c.name))
      refuse(`carrier NAME may hold letters, digits, '.', '-' and '_' (at most 40), got "${c.name}"`);
    try {
      readCarrierSettings({ ...c.settings, name: c.name, protocol: c.protocol }, `carrier "${c.name}"`);
    } catch (err) {
      if (err instanceof ConfigError) refuse(err.message);
      throw err;
    }
    const sealed = sealFields(sealingKey(ctx.config), c.settings, carrierSecrets(c.protocol));
    const created = await upsertCarrier(ctx.db, { name: c.name, protocol: c.protocol, settings: sealed }, ctx.now);
    return { ...ok, created };
  },
};

const carrierNameInput = z.object({ name: z.string() });

/** Removes a carrier that no route names. */
export const removeCarrier: OperatorOperation<typeof carrierNameInput, z.ZodObject<{}>> = {
  names: ['removeCarrier'],
  internal: true,
  input: carrierNameInput,
  reply: z.object({}),
  audit: { subject: (i) => `carrier ${i.name}`, state: (db, i) => carrierState(db, i.name) },
  async handler(ctx, { name }) {
    const routed = (await listRoutes(ctx.db)).filter((r) =>
      r.carrier.split(',').some((c) => c.split(':')[0].trim() === name),
    );
    if (routed.length > 0) refuse(`carrier "${name}" is on ${routed.length} route(s): change them first`);
    if (!(await deleteCarrier(ctx.db, name))) refuse(`no carrier named "${name}" in the store`);
    return ok;
  },
};

const routeFilters = { prefix: z.string(), account: z.string(), source: z.string(), channel: z.string() };
const routeInput = z.object({ ...routeFilters, carrier: z.string() });
const routeKeyInput = z.object(routeFilters);
type RouteKey = z.output<typeof routeKeyInput>;

const routeSubject = (r: RouteKey) =>
  `route ${r.prefix || 'default'}${r.account ? ` account ${r.account}` : ''}${r.source ? ` sender ${r.source}` : ''}${r.channel ? ` ${r.channel}` : ''}`;

async function routeState(db: Queryable, r: RouteKey): Promise<unknown> {
  const found = (await listRoutes(db)).find(
    (x) => x.prefix === r.prefix && x.account === r.account && x.source === r.source && x.channel === r.channel,
  );
  return found ? { carriers: found.carrier } : null;
}

/**
 * Sets the carriers of the route with these filters (in failover order, `name[:weight]` each), adding it or
 * replacing its list. The carriers are checked by the caller against the carriers configured (the store's and the
 * carriers file's).
 */
export const setCarrierRoute: OperatorOperation<typeof routeInput, z.ZodObject<{}>> = {
  names: ['setRoute'],
  internal: true,
  input: routeInput,
  reply: z.object({}),
  audit: { subject: routeSubject, state: routeState },
  async handler(ctx, r) {
    if (!/^\d*$/.test(r.prefix)) refuse(`PREFIX must be international digits like 97250, got "${r.prefix}"`);
    await setRoute(ctx.db, r, ctx.now);
    return ok;
  },
};

/** Removes the route with exactly these filters. */
export const removeCarrierRoute: OperatorOperation<typeof routeKeyInput, z.ZodObject<{}>> = {
  names: ['removeRoute'],
  internal: true,
  input: routeKeyInput,
  reply: z.object({}),
  audit: { subject: routeSubject, state: routeState },
  async handler(ctx, r) {
    if (!(await deleteRoute(ctx.db, r))) refuse(`no route for ${routeSubject(r)}`);
    return ok;
  },
};
