// Per-carrier base of message ids in submit_sm_resp vs receipts ('as-is', 'submit-hex', 'receipt-hex', 'both-hex').
import type { Kysely } from 'kysely';
import type { Dialect } from '../types.ts';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('carriers')
    .addColumn('receipt_ids', 'text', (c) => c.notNull().defaultTo('as-is'))
    .execute();
}
