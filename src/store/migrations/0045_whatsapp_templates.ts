// The message templates of each WhatsApp carrier's business account, as its provider lists them (synced from the
// Graph API's message_templates): name, language, category, status, body text and how many variables it takes,
// with the business number the carrier sends from ('*' for a carrier serving any, the bundled simulator).
import type { Kysely } from 'kysely';
import type { Dialect } from '../types.ts';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('whatsapp_templates')
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('business_number', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('variables', 'integer', (c) => c.notNull())
    .addColumn('components', 'text', (c) => c.notNull())
    .addColumn('synced_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('whatsapp_templates_pk', ['carrier', 'name', 'language'])
    .execute();
}
