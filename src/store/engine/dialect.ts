// The handle knows its engine: a store function takes one handle (the database or a transaction on it) and
// reads the dialect from it, so no caller passes or branches on a dialect.
import { PostgresAdapter } from 'kysely';
import type { Dialect, Queryable } from '../types.ts';

/** The engine behind a handle (a Kysely instance, a transaction or a view of one): from its adapter. */
export function dialectOf(db: Queryable): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}
