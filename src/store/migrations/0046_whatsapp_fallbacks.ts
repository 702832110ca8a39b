// SMS fallbacks of WhatsApp messages: for a WhatsApp message sent with `fallback`, the SMS that goes out from a
// verified sender when the WhatsApp message fails or is not delivered by `due_at`. Kept in the store so that a
// crash loses none: the fallback worker claims due rows under a lease and settles each once ('sent' with the
// SMS message it wrote, or 'cancelled' when WhatsApp delivered first).
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../types.ts';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('whatsapp_fallbacks')
    .addColumn('message_id', 'bigint', (c) => c.primaryKey())
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('sealed', 'text')
    .addColumn('due_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_until', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('sms_message_id', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('settled_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('whatsapp_fallbacks_pending')
    .on('whatsapp_fallbacks')
    .column('due_at')
    .where(sql<boolean>`state = 'pending'`)
    .execute();
}
