// Voice calls: a message is a text or a call (`channel`), a call carries how it is spoken and, once answered, how
// long its message played (`call_seconds`), and the registry of
// filtered (Kosher) phones that refuse texts, fed by status-15 receipts and by the operator.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../types.ts';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('messages')
    .addColumn('channel', 'text', (c) => c.notNull().defaultTo('sms'))
    .execute();
  await db.schema.alterTable('messages').addColumn('spoken', 'text').execute();
  await db.schema.alterTable('messages').addColumn('call_seconds', 'integer').execute();
  // The voice lane's claim looks only at queued calls; texts never enter this index.
  await db.schema
    .createIndex('messages_call_queue')
    .on('messages')
    .columns(['next_attempt_at', 'id'])
    .where(sql<boolean>`state = 'queued' and channel = 'call'`)
    .execute();

  await db.schema
    .createTable('filtered_phones')
    .addColumn('phone', 'text', (c) => c.primaryKey())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}
