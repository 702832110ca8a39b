// yona_store_version: one row, the version of Yona that last migrated the store and when (store/engine/store-version.ts).
// An older Yona refuses a store whose recorded version is newer than its own.
import type { Kysely } from 'kysely';
import type { Dialect } from '../types.ts';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('yona_store_version')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('migrated_at', 'text', (c) => c.notNull())
    .execute();
}
