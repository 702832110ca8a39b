// Web console: sessions (only a SHA-256 of each session id is stored, with its CSRF token and expiry) and
// failed logins per username (for the lockout).
import type { Kysely } from 'kysely';
import type { Dialect } from '../types.ts';
import { withId } from './columns.ts';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable('console_sessions'), dialect)
    .addColumn('id_hash', 'text', (c) => c.notNull().unique())
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('csrf', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('console_sessions_account').on('console_sessions').columns(['account_id']).execute();

  await withId(db.schema.createTable('console_login_failures'), dialect)
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('failed_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('console_login_failures_user')
    .on('console_login_failures')
    .columns(['username', 'failed_at'])
    .execute();
}
