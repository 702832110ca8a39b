// Hot queries: SQL built once per dialect and run with each call's parameters, at once on the embedded store
// where its group-commit driver allows.
import { SqliteAdapter, type Compilable, type CompiledQuery, type QueryResult } from 'kysely';
import { GroupCommitSqliteAdapter } from './group-commit.ts';
import type { Queryable } from '../types.ts';

const compiledQueries = new WeakMap<Function, WeakMap<object, CompiledQuery>>();

/** Builds a hot query (with placeholder values: the SQL is kept, the parameters come from each call). */
type BuildQuery<Q> = (db: Queryable) => Q;

/** A hot INSERT or UPDATE: runPreparedWrite adds `returning('id')` where the dialect needs it. */
type WriteQuery = Compilable<unknown> & { returning(selection: 'id'): Compilable<unknown> };

// A hot query compiled once per dialect (`onPostgres` finishes it there), with this call's parameters.
function compiledWith<Q extends Compilable<unknown>>(
  db: Queryable,
  build: BuildQuery<Q>,
  params: readonly unknown[],
  onPostgres?: (query: Q) => Compilable<unknown>,
): CompiledQuery {
  const adapter = db.getExecutor().adapter;
  let perDialect = compiledQueries.get(build);
  if (!perDialect) compiledQueries.set(build, (perDialect = new WeakMap()));
  let compiled = perDialect.get(adapter);
  if (!compiled) {
    const query = build(db);
    perDialect.set(
      adapter,
      (compiled = (onPostgres && !(adapter instanceof SqliteAdapter) ? onPostgres(query) : query).compile()),
    );
  }
  return { ...compiled, parameters: params };
}

const returningId = (query: WriteQuery) => query.returning('id');

// On the embedded store, the result of running the query at once where the group-commit driver allows it
// (runNow); otherwise undefined, and the query goes through Kysely's executor. The hot runners below use it
// inline rather than through runCompiled, so a hot query costs one async frame, not two.
function resultNow<R>(db: Queryable, compiled: CompiledQuery): QueryResult<R> | undefined {
  const adapter = db.getExecutor().adapter;
  return adapter instanceof GroupCommitSqliteAdapter ? adapter.driver.runNow<R>(compiled, db.isTransaction) : undefined;
}

/**
 * Runs a hot query whose SQL is built once per dialect and reused with new parameters: Kysely's query
 * building costs more than SQLite's execution for small lookups. `build` must use `params` in order.
 */
export async function runPrepared<R>(
  db: Queryable,
  build: BuildQuery<Compilable<R>>,
  params: readonly unknown[],
): Promise<R[]> {
  const compiled = compiledWith(db, build, params);
  return (resultNow<R>(db, compiled) ?? (await db.executeQuery<R>(compiled))).rows;
}

/** What a prepared write did: the inserted row's id (inserts) and how many rows it changed. */
export interface WriteResult {
  id: number | undefined;
  changes: number;
}

/**
 * Runs a hot INSERT or UPDATE like runPrepared. On PostgreSQL the id and count come from `returning('id')`,
 * added here; on SQLite from the statement's own result, because RETURNING there cost a third of the
 * statement (its rows are gathered in a temporary table first).
 */
export async function runPreparedWrite<Q extends WriteQuery>(
  db: Queryable,
  build: BuildQuery<Q>,
  params: readonly unknown[],
): Promise<WriteResult> {
  const compiled = compiledWith(db, build, params, returningId);
  const result = resultNow(db, compiled) ?? (await db.executeQuery(compiled));
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    return {
      id: result.insertId === undefined ? undefined : Number(result.insertId),
      changes: Number(result.numAffectedRows ?? 0),
    };
  }
  const first = result.rows[0] as { id: unknown } | undefined;
  return { id: first ? Number(first.id) : undefined, changes: result.rows.length };
}

/** Runs a compiled query; on the embedded store, at once where the group-commit driver allows (runNow). */
export async function runCompiled<R>(db: Queryable, compiled: CompiledQuery): Promise<QueryResult<R>> {
  return resultNow<R>(db, compiled) ?? db.executeQuery<R>(compiled);
}
