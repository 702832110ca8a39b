// Prices the operator sets: the international rate card (agorot a part per destination country, with a default
// under the country '*') and per-account prices of a domestic part (credits) and an international part (agorot).
// Without a row the configured YONA_INTL_PRICE_AGOROT and one credit a part apply.
import type { Kysely } from 'kysely';
import type { Dialect } from '../types.ts';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('intl_rates')
    .addColumn('country', 'text', (c) => c.primaryKey())
    .addColumn('agorot_per_part', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('account_prices')
    .addColumn('account_id', 'bigint', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('domestic_credits_per_part', 'integer')
    .addColumn('intl_agorot_per_part', 'integer')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}
