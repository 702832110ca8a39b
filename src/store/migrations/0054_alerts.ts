// Operator alerts: the thresholds the operator sets (one row per kind), the operator's webhook (one row, its
// signing secret sealed at rest), every alert raised (open until cleared) and the webhook posts of raises and
// clears waiting to be delivered (retried until they are).
import type { Kysely } from 'kysely';
import type { Dialect } from '../types.ts';
import { withId } from './columns.ts';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('alert_rules')
    .addColumn('kind', 'text', (c) => c.primaryKey())
    .addColumn('percent', 'integer')
    .addColumn('minutes', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('alert_webhook')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await withId(db.schema.createTable('alerts'), dialect)
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('value', 'double precision', (c) => c.notNull())
    .addColumn('threshold', 'double precision', (c) => c.notNull())
    .addColumn('raised_at', 'bigint', (c) => c.notNull())
    .addColumn('cleared_at', 'bigint')
    .addColumn('cleared_value', 'double precision')
    .execute();
  await db.schema.createIndex('alerts_open').on('alerts').columns(['kind', 'subject', 'cleared_at']).execute();
  await withId(db.schema.createTable('alert_posts'), dialect)
    .addColumn('alert_id', 'bigint', (c) => c.notNull().references('alerts.id').onDelete('cascade'))
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('sent_at', 'bigint')
    .addColumn('last_error', 'text')
    .execute();
  await db.schema.createIndex('alert_posts_due').on('alert_posts').columns(['sent_at', 'next_attempt_at']).execute();
}
