// A receipt that arrives before its message's carrier id is recorded waits in pending_receipts; for a call it
// also carries whether the call was never placed (its cost is refunded) and how long it played.
import type { Kysely } from 'kysely';
import type { Dialect } from '../types.ts';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('pending_receipts')
    .addColumn('refund', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('pending_receipts').addColumn('duration_ms', 'bigint').execute();
}
