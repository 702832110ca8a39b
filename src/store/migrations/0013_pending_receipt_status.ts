// Pending receipts keep our delivery status instead of SMPP's state name and err code: each carrier protocol now
// maps its own codes before a receipt reaches the store. Rows waiting at the upgrade are converted with the SMPP
// mapping of this version, written out here because a migration must not change when that code does.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../types.ts';
import { withId } from './columns.ts';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable('pending_receipts_v2'), dialect)
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('carrier_message_id', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  const digits =
    dialect === 'postgres' ? sql`trim(err) ~ '^[0-9]+$'` : sql`trim(err) <> '' and trim(err) not glob '*[^0-9]*'`;
  const code = sql`(case when ${digits} then cast(trim(err) as integer) else 0 end)`;
  await sql`
    insert into pending_receipts_v2 (carrier, carrier_message_id, status, at, created_at)
    select carrier, carrier_message_id, case
      when upper(state) = 'DELIVRD' then 102
      when upper(state) in ('ACCEPTD', 'ENROUTE', 'SCHEDULED') then -1
      when ${code} in (4, 14, 15, 16, 17, 18, 747) then ${code}
      when upper(state) = 'EXPIRED' then 103
      when upper(state) = 'DELETED' then 104
      when upper(state) = 'REJECTD' then 108
      when upper(state) in ('UNDELIV', 'SKIPPED') then 101
      else 999 end,
    at, created_at from pending_receipts`.execute(db);
  await db.schema.dropTable('pending_receipts').execute();
  await db.schema.alterTable('pending_receipts_v2').renameTo('pending_receipts').execute();
  await db.schema
    .createIndex('pending_receipts_id')
    .on('pending_receipts')
    .columns(['carrier', 'carrier_message_id'])
    .execute();
  await db.schema.createIndex('pending_receipts_time').on('pending_receipts').columns(['created_at']).execute();
}
