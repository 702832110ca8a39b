// Per-carrier limits and prices:
// - carrier_daily_usage: the SMS parts each carrier took per day (YONA_TIME_ZONE's calendar day, 'YYYY-MM-DD'),
//   added in the transaction that records the submits, so every node of one database counts the same;
// - messages.carrier_cost: what the carrier that took the message charges for it, in thousandths of an agora
//   (its parts times the carrier's costPerPart; null when the carrier has no price).
import type { Kysely } from 'kysely';
import type { Dialect } from '../types.ts';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('carrier_daily_usage')
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('parts', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('carrier_daily_usage_pk', ['carrier', 'day'])
    .execute();
  await db.schema.alterTable('messages').addColumn('carrier_cost', 'bigint').execute();
}
