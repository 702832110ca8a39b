// Serialises the check-then-write of a limit (a count read, then a row written) per scope: on PostgreSQL a
// transaction-scoped advisory lock on the scope's name, held until the transaction ends, so two requests of one
// scope (one account and phone, one account), on one node or several, take turns at the check. SQLite has one
// writer at a time: its transactions already take turns.
import { sql } from 'kysely';
import type { Queryable } from './engine/db.ts';
import { dialectOf } from './engine/dialect.ts';

/** Waits for the scope's lock, inside the caller's transaction (a no-op on SQLite). */
export async function lockLimitScope(db: Queryable, scope: string): Promise<void> {
  const dialect = dialectOf(db);
  if (dialect !== 'postgres') return;
  await sql`select pg_advisory_xact_lock(hashtextextended(${`limit:${scope}`}, 0))`.execute(db);
}
