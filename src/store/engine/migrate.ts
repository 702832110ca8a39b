// Runs the versioned migrations (listed in migrations/index.ts) and checks that a store has them.
import { Migrator, type Kysely, type Migration } from 'kysely';
import { MIGRATIONS } from '../migrations/index.ts';
import type { Dialect } from '../types.ts';
import { recordStoreVersion, refuseNewerStore } from './store-version.ts';

/**
 * Applies every migration not yet applied (or those up to `upTo`, a migration's name) and records this version as
 * the store's; throws when one fails, and refuses (StoreTooNewError) a store that a newer Yona migrated.
 */
export async function migrateToLatest(db: Kysely<any>, dialect: Dialect, upTo?: string): Promise<void> {
  await refuseNewerStore(db, Object.keys(MIGRATIONS));
  if (upTo) return migrate(db, dialect, upTo);
  if (!(await upToDate(db))) await migrate(db, dialect);
  await recordStoreVersion(db);
}

async function migrate(db: Kysely<any>, dialect: Dialect, upTo?: string): Promise<void> {
  const migrations: Record<string, Migration> = {};
  for (const [name, m] of Object.entries(MIGRATIONS)) migrations[name] = { up: (d) => m.up(d, dialect) };
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'yona_migrations',
    migrationLockTableName: 'yona_migrations_lock',
    // Numbers are handed out ahead of time, so one may ship after a higher one did: a store that already has
    // the higher one applies the lower one late (each migration stands on its own).
    allowUnorderedMigrations: true,
  });
  const { error, results } = await (upTo ? migrator.migrateTo(upTo) : migrator.migrateToLatest());
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`migration ${failed ?? '?'} failed: ${(error as Error).message ?? error}`);
  }
}

// True when every migration has been applied: one read, where the migrator would take its lock (a write) to find
// nothing to do. A store without the migrations table (a new one) is not up to date.
async function upToDate(db: Kysely<any>): Promise<boolean> {
  const names = Object.keys(MIGRATIONS);
  try {
    const row = await db
      .selectFrom('yona_migrations')
      .select((eb) => [eb.fn.countAll<number>().as('applied'), eb.fn.max('name').as('last')])
      .executeTakeFirst();
    return Number(row?.applied) === names.length && row?.last === names.at(-1);
  } catch {
    return false;
  }
}

/** Throws unless the store answers and has its migrations table (what /healthz checks). */
export async function checkMigrated(db: Kysely<any>): Promise<void> {
  await db.selectFrom('yona_migrations').select('name').limit(1).execute();
}
