// Routes that filter and fail over: a route matches by destination prefix and, optionally, by account (or a
// reseller's sub-accounts), sender and channel, and names an ordered list of carriers with optional weights
// ("a:3,b:1"; a list of one is the single carrier routes had). The same prefix may now hold several routes that
// differ by their filters, so the table is rebuilt with a key over all four (SQLite cannot drop a UNIQUE).
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../types.ts';
import { withId } from './columns.ts';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable('carrier_routes_v2'), dialect)
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('account', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('source', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('channel', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('carrier_routes_match', ['prefix', 'account', 'source', 'channel'])
    .execute();
  await sql`insert into carrier_routes_v2 (prefix, carrier, created_at)
    select prefix, carrier, created_at from carrier_routes order by id`.execute(db);
  await db.schema.dropTable('carrier_routes').execute();
  await db.schema.alterTable('carrier_routes_v2').renameTo('carrier_routes').execute();
}
