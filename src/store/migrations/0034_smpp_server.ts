// The SMPP server for customers: each account's SMPP credentials and limits, the submits that came over SMPP
// (so their receipts go back as deliver_sm), the outbox of deliver_sm waiting for one of the account's receiver
// binds on any node, and the binds live now (one row per bind, refreshed by its node).
import type { Kysely } from 'kysely';
import type { Dialect } from '../types.ts';
import { withId } from './columns.ts';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('smpp_accounts')
    .addColumn('account_id', 'bigint', (c) => c.primaryKey())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('tls_only', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_binds', 'integer', (c) => c.notNull().defaultTo(4))
    .addColumn('submits_per_second', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('window_size', 'integer', (c) => c.notNull().defaultTo(100))
    .addColumn('failed_binds', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_until', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('smpp_submits')
    .addColumn('campaign_id', 'bigint', (c) => c.primaryKey())
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('registered_delivery', 'integer', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('text_head', 'text', (c) => c.notNull())
    .addColumn('submitted_at', 'bigint', (c) => c.notNull())
    .addColumn('validity_until', 'bigint')
    .execute();
  await db.schema.createIndex('smpp_submits_time').on('smpp_submits').column('submitted_at').execute();
  await withId(db.schema.createTable('smpp_outbox'), dialect)
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('event_key', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('smpp_outbox_due')
    .on('smpp_outbox')
    .columns(['account_id', 'next_attempt_at', 'id'])
    .execute();
  await db.schema.createIndex('smpp_outbox_key').on('smpp_outbox').columns(['kind', 'event_key']).unique().execute();
  await db.schema.createIndex('smpp_outbox_age').on('smpp_outbox').column('created_at').execute();
  await db.schema
    .createTable('smpp_binds')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('node', 'text', (c) => c.notNull())
    .addColumn('bind_type', 'text', (c) => c.notNull())
    .addColumn('remote_address', 'text', (c) => c.notNull())
    .addColumn('tls', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('since', 'bigint', (c) => c.notNull())
    .addColumn('submits', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('submits_per_second', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('seen_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('smpp_binds_account').on('smpp_binds').columns(['account_id', 'seen_at']).execute();
}
