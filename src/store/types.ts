// The store's shared types: which engine, the database and a transaction on it (every query file takes them).
import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema/index.ts';

export type Dialect = 'sqlite' | 'postgres';
export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;
/** Either the database or a transaction on it: query files accept both. */
export type Queryable = Kysely<Database>;
