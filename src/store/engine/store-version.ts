// Which version of Yona last migrated the store, in a table of its own (migration 0030; a store from before it
// has none), read before migrating: a store that a newer Yona has migrated (a higher recorded
// version, or migrations this build does not know) is refused with one clear line instead of being run by code
// that does not know its schema. After migrating, the record moves forward, never back.
import type { Kysely } from 'kysely';
import { compareVersions, VERSION } from '../../domain/version.ts';

const TABLE = 'yona_store_version';

/** A store changed by a newer Yona than this one: nothing was done to it. */
export class StoreTooNewError extends Error {}

/** The version that last migrated the store, or undefined for a new store or one from before versions were kept. */
export async function storeVersion(db: Kysely<any>): Promise<string | undefined> {
  try {
    const row = await db.selectFrom(TABLE).select('version').where('id', '=', 1).executeTakeFirst();
    return row?.version as string | undefined;
  } catch {
    return undefined;
  }
}

/** Throws StoreTooNewError when a newer Yona migrated the store, naming both versions and the way out. */
export async function refuseNewerStore(db: Kysely<any>, known: readonly string[]): Promise<void> {
  const recorded = await storeVersion(db);
  if (recorded && compareVersions(recorded, VERSION) > 0)
    throw new StoreTooNewError(
      `this store was last migrated by Yona ${recorded}, newer than this Yona ${VERSION}: run Yona ${recorded} or later on it (docs/upgrade.md)`,
    );
  const applied = await db
    .selectFrom('yona_migrations')
    .select('name')
    .execute()
    .catch(() => [] as Array<{ name: string }>);
  const unknown = applied.map((r) => r.name as string).filter((name) => !known.includes(name));
  if (unknown.length > 0)
    throw new StoreTooNewError(
      `this store has migrations this Yona ${VERSION} does not know (${unknown.join(', ')}): a newer Yona${recorded ? ` (${recorded})` : ''} migrated it; run that version or later on it (docs/upgrade.md)`,
    );
}

/** Records this build as the one that last migrated the store, unless a newer one already is. */
export async function recordStoreVersion(db: Kysely<any>): Promise<void> {
  const recorded = await storeVersion(db);
  if (recorded && compareVersions(recorded, VERSION) >= 0) return;
  const at = new Date().toISOString();
  await db
    .insertInto(TABLE)
    .values({ id: 1, version: VERSION, migrated_at: at })
    .onConflict((oc) => oc.column('id').doUpdateSet({ version: VERSION, migrated_at: at }))
    .execute();
}
