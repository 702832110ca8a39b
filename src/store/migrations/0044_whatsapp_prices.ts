// WhatsApp's rate card: what one WhatsApp message costs an account, in credits, by its category (marketing,
// utility, authentication, service), as the operator sets it (`yona admin whatsapp-price`).
import type { Kysely } from 'kysely';
import type { Dialect } from '../types.ts';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('whatsapp_prices')
    .addColumn('category', 'text', (c) => c.primaryKey())
    .addColumn('credits', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}
