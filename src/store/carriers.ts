// Operator configuration kept in the store: carriers (each with its protocol's settings), destination routes and the accounts' inbound numbers.
import type { Selectable } from 'kysely';
import type { Queryable } from './engine/db.ts';
import type { CarrierTable } from './schema/carriers.ts';

/** A carrier row as stored. */
export type CarrierRow = Selectable<CarrierTable>;

/** A carrier as the operator adds it (`yona admin add-carrier`): its protocol and that protocol's settings, secrets sealed. */
export interface NewCarrier {
  name: string;
  protocol: string;
  settings: Record<string, unknown>;
}

/** Adds a carrier, or replaces the protocol and settings of the one with that name; returns true when it was new. */
export async function upsertCarrier(db: Queryable, c: NewCarrier, now: number): Promise<boolean> {
  const values = { protocol: c.protocol, settings: JSON.stringify(c.settings) };
  const existing = await db.selectFrom('carriers').select('id').where('name', '=', c.name).executeTakeFirst();
  if (existing) {
    await db.updateTable('carriers').set(values).where('id', '=', existing.id).execute();
    return false;
  }
  await db
    .insertInto('carriers')
    .values({ name: c.name, ...values, created_at: now })
    .execute();
  return true;
}

/** Every configured carrier, oldest first (the first is the default when no default route exists). */
export async function listCarriers(db: Queryable): Promise<CarrierRow[]> {
  return db.selectFrom('carriers').selectAll().orderBy('id').execute();
}

/** A stored route: what it matches ('' filters match everything) and its carrier list ('a,b:3'). */
export interface StoredRoute {
  prefix: string;
  account: string;
  source: string;
  channel: string;
  carrier: string;
}

/** Sets the carriers of the route with these filters, adding it or replacing its carriers. */
export async function setRoute(db: Queryable, route: StoredRoute, now: number): Promise<void> {
  await db
    .insertInto('carrier_routes')
    .values({ ...route, created_at: now })
    .onConflict((oc) =>
      oc.columns(['prefix', 'account', 'source', 'channel']).doUpdateSet({ carrier: route.carrier, created_at: now }),
    )
    .execute();
}

/** Removes the route with exactly these filters; true when there was one. */
export async function deleteRoute(db: Queryable, route: Omit<StoredRoute, 'carrier'>): Promise<boolean> {
  const res = await db
    .deleteFrom('carrier_routes')
    .where('prefix', '=', route.prefix)
    .where('account', '=', route.account)
    .where('source', '=', route.source)
    .where('channel', '=', route.channel)
    .executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/** Every route. */
export async function listRoutes(db: Queryable): Promise<StoredRoute[]> {
  return db
    .selectFrom('carrier_routes')
    .select(['prefix', 'account', 'source', 'channel', 'carrier'])
    .orderBy('prefix')
    .orderBy('account')
    .orderBy('source')
    .orderBy('channel')
    .execute();
}

/** Removes a carrier; true when there was one. */
export async function deleteCarrier(db: Queryable, name: string): Promise<boolean> {
  const res = await db.deleteFrom('carriers').where('name', '=', name).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/** An account's username and its reseller's (what routes filter by). */
export async function accountRouteNames(
  db: Queryable,
  accountId: number,
): Promise<{ username: string; reseller: string | null } | undefined> {
  const row = await db
    .selectFrom('accounts as a')
    .leftJoin('accounts as p', 'p.id', 'a.parent_id')
    .select(['a.username as username', 'p.username as reseller'])
    .where('a.id', '=', accountId)
    .executeTakeFirst();
  return row ? { username: row.username, reseller: row.reseller ?? null } : undefined;
}

/** Gives an account an inbound number; false when another account already owns it. */
export async function addAccountNumber(
  db: Queryable,
  accountId: number,
  number: string,
  now: number,
): Promise<boolean> {
  const owner = await findNumberOwner(db, number);
  if (owner !== undefined) return owner === accountId;
  await db.insertInto('account_numbers').values({ account_id: accountId, number, created_at: now }).execute();
  return true;
}

/** The account owning an inbound number (already normalised), if any. */
export async function findNumberOwner(db: Queryable, number: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('account_numbers')
    .select('account_id')
    .where('number', '=', number)
    .executeTakeFirst();
  return row ? Number(row.account_id) : undefined;
}
