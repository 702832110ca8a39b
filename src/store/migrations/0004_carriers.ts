// The carriers tables: carriers and routes, inbound numbers, carrier message ids, pending receipts, inbound
// messages (routed and not), and the index the delivery-report polls read by status time.
import type { Kysely } from 'kysely';
import type { Dialect } from '../types.ts';
import { withId } from './columns.ts';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable('carriers'), dialect)
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('port', 'integer', (c) => c.notNull())
    .addColumn('system_id', 'text', (c) => c.notNull())
    .addColumn('password', 'text', (c) => c.notNull())
    .addColumn('system_type', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('bind_mode', 'text', (c) => c.notNull().defaultTo('transceiver'))
    .addColumn('binds', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('window_size', 'integer', (c) => c.notNull().defaultTo(10))
    .addColumn('max_tps', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('tls', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await withId(db.schema.createTable('carrier_routes'), dialect)
    .addColumn('prefix', 'text', (c) => c.notNull().unique())
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await withId(db.schema.createTable('account_numbers'), dialect)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('number', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('carrier_message_ids')
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('carrier_message_id', 'text', (c) => c.notNull())
    .addColumn('message_id', 'bigint', (c) => c.notNull())
    .addColumn('part_index', 'integer', (c) => c.notNull())
    .addColumn('part_status', 'integer')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('carrier_message_ids_pk', ['carrier', 'carrier_message_id'])
    .execute();
  await db.schema
    .createIndex('carrier_message_ids_message')
    .on('carrier_message_ids')
    .columns(['message_id', 'part_index'])
    .execute();

  await withId(db.schema.createTable('pending_receipts'), dialect)
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('carrier_message_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('err', 'text')
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('pending_receipts_id')
    .on('pending_receipts')
    .columns(['carrier', 'carrier_message_id'])
    .execute();
  await db.schema.createIndex('pending_receipts_time').on('pending_receipts').columns(['created_at']).execute();

  await withId(db.schema.createTable('inbound_messages'), dialect)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('dest', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('inbound_messages_account_time')
    .on('inbound_messages')
    .columns(['account_id', 'received_at'])
    .execute();

  await withId(db.schema.createTable('unrouted_inbound'), dialect)
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('dest', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .execute();

  // dlrByDate reads reports by the time of their current status.
  await db.schema
    .createIndex('messages_account_status_time')
    .on('messages')
    .columns(['account_id', 'status_at'])
    .execute();
}
