// The message indexes looked up by external id and by status time hold only rows that have one: most sends
// carry no external id, and a message has no status until it is submitted, so every accepted message was
// adding two index entries no query could find (and the status one was moved again at submission).
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../types.ts';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.dropIndex('messages_external').execute();
  await db.schema
    .createIndex('messages_external')
    .on('messages')
    .columns(['account_id', 'external_id'])
    .where(sql.ref('external_id'), 'is not', null)
    .execute();
  await db.schema.dropIndex('messages_account_status_time').execute();
  await db.schema
    .createIndex('messages_account_status_time')
    .on('messages')
    .columns(['account_id', 'status_at'])
    .where(sql.ref('status_at'), 'is not', null)
    .execute();
}
