// The operator's console:
// - operators: who may sign in at /admin (name, argon2id password hash, role 'admin' or 'support' (reads only), the
//   TOTP secret sealed with the service's key, null until enrolled at the first sign-in, and its last used step);
// - operator_sessions: as console_sessions (only the SHA-256 of the cookie's id), for operators;
// - operator_login_failures: failed operator sign-ins per name and address (the lockout);
// - audit_log: every change an operator made, from the console or the CLI (who, from where, what, on what, the
//   state before and after as JSON). Append-only: a trigger refuses any UPDATE or DELETE on both stores.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../types.ts';
import { withId } from './columns.ts';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable('operators'), dialect)
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('totp_secret', 'text')
    .addColumn('totp_last_step', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await withId(db.schema.createTable('operator_sessions'), dialect)
    .addColumn('id_hash', 'text', (c) => c.notNull().unique())
    .addColumn('operator_id', 'bigint', (c) => c.notNull().references('operators.id').onDelete('cascade'))
    .addColumn('csrf', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();

  await withId(db.schema.createTable('operator_login_failures'), dialect)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('failed_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('operator_login_failures_name')
    .on('operator_login_failures')
    .columns(['name', 'failed_at'])
    .execute();

  await withId(db.schema.createTable('audit_log'), dialect)
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('operator', 'text', (c) => c.notNull())
    .addColumn('via', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('before', 'text')
    .addColumn('after', 'text')
    .execute();
  await db.schema.createIndex('audit_log_at').on('audit_log').columns(['at']).execute();
  await db.schema.createIndex('audit_log_operator').on('audit_log').columns(['operator', 'at']).execute();
  await db.schema.createIndex('audit_log_subject').on('audit_log').columns(['subject', 'at']).execute();

  if (dialect === 'postgres') {
    await sql`CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'audit_log is append-only'; END $$`.execute(db);
    await sql`CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
      FOR EACH ROW EXECUTE FUNCTION audit_log_append_only()`.execute(db);
  } else {
    await sql`CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
      BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END`.execute(db);
    await sql`CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
      BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END`.execute(db);
  }
}
