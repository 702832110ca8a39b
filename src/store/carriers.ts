// Operator configuration kept in the store: carriers (each with its protocol's settings), destination routes and the accounts' inbound numbers.
import type { Selectable } from 'kysely';
import type { Queryable } from './db.ts';
import type { CarrierTable } from './schema/carriers.ts';

/** A carrier row as stored. */
export type CarrierRow = Selectable<CarrierTable>;

/** A carrier as the operator adds it (`yona admin add-carrier`): its protocol and that protocol's settings. */
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

/** Routes destinations starting with `prefix` ('' = default) to `carrier`, replacing an earlier route. */
export async function setRoute(db: Queryable, prefix: string, carrier: string, now: number): Promise<void> {
  await db
    .insertInto('carrier_routes')
    .values({ prefix, carrier, created_at: now })
    .onConflict((oc) => oc.column('prefix').doUpdateSet({ carrier, created_at: now }))
    .execute();
}

/** Every route (prefix, carrier). */
export async function listRoutes(db: Queryable): Promise<Array<{ prefix: string; carrier: string }>> {
  return db.selectFrom('carrier_routes').select(['prefix', 'carrier']).orderBy('prefix').execute();
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
