// - accounts.totp_last_step: the last TOTP time step (RFC 6238, 30 s) accepted for the account's console sign-in;
//   a code of that step or an earlier one is refused, so a code once used cannot be used again in its window.
// - On PostgreSQL, a trigram index (pg_trgm, GIN) on messages.phone: the console's message log searched by any
//   part of a number reads the matching rows from it instead of every row of the account. Created on the
//   partitioned parent, so every month's partition has it. The embedded store searches the phone column of
//   messages_account_time (0024) instead.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../types.ts';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('totp_last_step', 'bigint').execute();
  if (dialect === 'postgres') {
    await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
    await sql`CREATE INDEX IF NOT EXISTS messages_phone_trgm ON messages USING gin (phone gin_trgm_ops)`.execute(db);
  }
}
