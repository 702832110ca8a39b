// Accounts, their allowed IPs, API tokens, the credit ledger and verified senders.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../types.ts';
import { withId } from './columns.ts';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable('accounts'), dialect)
    .addColumn('username', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('credits', 'bigint', (c) => c.notNull().defaultTo(0).check(sql`credits >= 0`))
    .addColumn('intl_agorot', 'bigint', (c) => c.notNull().defaultTo(0).check(sql`intl_agorot >= 0`))
    .addColumn('is_reseller', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('parent_id', 'bigint', (c) => c.references('accounts.id'))
    .addColumn('time_zone', 'text', (c) => c.notNull())
    .addColumn('ip_check', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await withId(db.schema.createTable('account_ips'), dialect)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('cidr', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('account_ips_unique', ['account_id', 'cidr'])
    .execute();

  await withId(db.schema.createTable('api_tokens'), dialect)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('last4', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('superseded_at', 'bigint')
    .addUniqueConstraint('api_tokens_name_unique', ['account_id', 'name'])
    .execute();

  await withId(db.schema.createTable('ledger_entries'), dialect)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('ref_type', 'text')
    .addColumn('ref_id', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ledger_entries_account').on('ledger_entries').columns(['account_id', 'id']).execute();

  await withId(db.schema.createTable('verified_senders'), dialect)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('verified_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('verified_senders_unique', ['account_id', 'source'])
    .execute();
}
