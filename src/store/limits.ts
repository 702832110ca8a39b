// Serialises the check-then-write of a limit (a count read, then a row written) per scope: on PostgreSQL a
// transaction-scoped advisory lock on the scope's name, held until the transaction ends, so two requests of one
// scope (one account and phone, one account), on one node or several, take turns at the check. SQLite has one
// writer at a time: its transactions already take turns.
import { sql } from 'kysely';
import type { Dialect, Queryable } from './engine/db.ts';

/** Waits for the scope's lock, inside the caller's transaction (a no-op on SQLite). */
export async function lockLimitScope(db: Queryable, dialect: Dialect, scope: string): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`select pg_advisory_xact_lock(hashtextextended(${`limit:${scope}`}, 0))`.execute(db);
}
