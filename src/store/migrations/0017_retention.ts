// Retention (YONA_RETENTION_DAYS): finished campaigns are found by when they were created, and kept inbound
// rows by when they arrived, without walking the whole table.
import type { Kysely } from 'kysely';
import type { Dialect } from '../types.ts';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.createIndex('campaigns_created').on('campaigns').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('inbound_messages_time').on('inbound_messages').columns(['received_at', 'id']).execute();
  await db.schema.createIndex('unrouted_inbound_time').on('unrouted_inbound').columns(['received_at', 'id']).execute();
}
