// Several nodes on one database: the nodes that are alive (a heartbeat each lease period) and the leases they
// hold (a carrier's binds, a trunk's call shares, the scheduler's leadership), each until a time it renews.
import type { Kysely } from 'kysely';
import type { Dialect } from '../types.ts';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('nodes')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('roles', 'text', (c) => c.notNull())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('heartbeat_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('leases')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('node', 'text', (c) => c.notNull())
    .addColumn('acquired_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('leases_by_node').on('leases').column('node').execute();
}
