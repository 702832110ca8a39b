// Password authentication for older integrations, off unless the operator turns it on per account: the switch,
// and the count of recent failures with the time a lockout after them ends.
import type { Kysely } from 'kysely';
import type { Dialect } from '../types.ts';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('legacy_password', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('legacy_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('accounts').addColumn('legacy_locked_until', 'bigint').execute();
}
