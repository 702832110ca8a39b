// The operator's message log across accounts (/admin/messages): newest first over every account, and by carrier.
import type { Kysely } from 'kysely';
import type { Dialect } from '../types.ts';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.createIndex('messages_time').on('messages').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('messages_carrier_time').on('messages').columns(['carrier', 'created_at']).execute();
}
