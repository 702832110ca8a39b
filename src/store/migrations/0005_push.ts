// The push tables: registrations (one live URL per account and type), the event queue, the delivery log and
// signing secrets.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../types.ts';
import { withId } from './columns.ts';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable('push_registrations'), dialect)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('retry_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('last_failure_at', 'bigint')
    .addColumn('disabled_at', 'bigint')
    .addColumn('disabled_reason', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint')
    .execute();
  // One live registration per account and type; deleted ones stay for the log until pruned.
  await db.schema
    .createIndex('push_registrations_live')
    .on('push_registrations')
    .columns(['account_id', 'type'])
    .unique()
    .where(sql<boolean>`state <> 'deleted'`)
    .execute();

  await withId(db.schema.createTable('push_events'), dialect)
    .addColumn('registration_id', 'bigint', (c) => c.notNull().references('push_registrations.id').onDelete('cascade'))
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('order_key', 'text')
    .addColumn('is_final', 'integer')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_until', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('delivered_at', 'bigint')
    .execute();
  // due: which registrations have work; reg: a registration's claim in id order; key: ordering per key.
  await db.schema
    .createIndex('push_events_due')
    .on('push_events')
    .columns(['state', 'next_attempt_at', 'registration_id'])
    .execute();
  await db.schema
    .createIndex('push_events_reg')
    .on('push_events')
    .columns(['registration_id', 'state', 'id'])
    .execute();
  await db.schema
    .createIndex('push_events_key')
    .on('push_events')
    .columns(['registration_id', 'order_key', 'id'])
    .where(sql.ref('order_key'), 'is not', null)
    .execute();
  await db.schema.createIndex('push_events_created').on('push_events').columns(['created_at']).execute();

  await withId(db.schema.createTable('push_attempts'), dialect)
    .addColumn('registration_id', 'bigint', (c) => c.notNull().references('push_registrations.id').onDelete('cascade'))
    .addColumn('event_id', 'bigint', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('http_status', 'integer')
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .execute();
  await db.schema.createIndex('push_attempts_reg').on('push_attempts').columns(['registration_id', 'id']).execute();
  await db.schema.createIndex('push_attempts_at').on('push_attempts').columns(['at']).execute();

  await withId(db.schema.createTable('push_secrets'), dialect)
    .addColumn('account_id', 'bigint', (c) => c.notNull().unique().references('accounts.id').onDelete('cascade'))
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}
