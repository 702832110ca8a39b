// WhatsApp: which account may send from which business number (and through which carrier), the 24-hour customer
// service windows the users' messages open, and the carrier's own code kept beside a message's delivery status
// (Meta's error code of a failed WhatsApp message).
import type { Kysely } from 'kysely';
import type { Dialect } from '../types.ts';
import { withId } from './columns.ts';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable('whatsapp_numbers'), dialect)
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('business_number', 'text', (c) => c.notNull().unique())
    .addColumn('carrier', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('whatsapp_numbers_account').on('whatsapp_numbers').column('account_id').execute();
  await db.schema
    .createTable('whatsapp_windows')
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('business_number', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('last_inbound_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('whatsapp_windows_pk', ['account_id', 'business_number', 'user_id'])
    .execute();
  await db.schema.alterTable('messages').addColumn('carrier_error', 'text').execute();
  await db.schema.alterTable('pending_receipts').addColumn('carrier_error', 'text').execute();
}
