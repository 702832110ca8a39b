// The audience tables (filled in by that issue before it ships).
import type { Kysely } from 'kysely';
import type { Dialect } from '../db.ts';

export async function up(_db: Kysely<any>, _dialect: Dialect): Promise<void> {}
