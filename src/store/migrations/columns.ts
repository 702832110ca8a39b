// Dialect-aware column helpers for migrations (the only place id columns differ).
import type { CreateTableBuilder } from 'kysely';
import type { Dialect } from '../types.ts';

/** Adds an auto-increment integer primary key `id`. */
export function withId<T extends string>(
  table: CreateTableBuilder<T, any>,
  dialect: Dialect,
): CreateTableBuilder<T, any> {
  return dialect === 'postgres'
    ? table.addColumn('id', 'bigserial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}
