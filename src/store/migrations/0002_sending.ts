// Campaigns and messages (the send path and the dispatcher's queue), short links and their clicks, and
// pending sender verifications.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../types.ts';
import { withId } from './columns.ts';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable('campaigns'), dialect)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('scheduled_at', 'bigint')
    .addColumn('recipients', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('credits_charged', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('agorot_charged', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('options', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('released_at', 'bigint')
    .addColumn('finished_at', 'bigint')
    .addColumn('cancelled_at', 'bigint')
    .execute();
  await db.schema.createIndex('campaigns_account_name').on('campaigns').columns(['account_id', 'name']).execute();
  // Only scheduled campaigns are looked up by time (the scheduler); the rest stay out of this index.
  await db.schema
    .createIndex('campaigns_due')
    .on('campaigns')
    .column('scheduled_at')
    .where(sql.ref('state'), '=', sql.lit('scheduled'))
    .execute();

  await withId(db.schema.createTable('messages'), dialect)
    .addColumn('campaign_id', 'bigint', (c) => c.notNull().references('campaigns.id').onDelete('cascade'))
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('external_id', 'text')
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('parts', 'integer', (c) => c.notNull())
    .addColumn('cost_credits', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('cost_agorot', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('status', 'integer')
    .addColumn('status_at', 'bigint')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_until', 'bigint')
    .addColumn('carrier', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('submitted_at', 'bigint')
    .addColumn('unsubscribe_code', 'text')
    .execute();
  await db.schema.createIndex('messages_queue').on('messages').columns(['state', 'next_attempt_at', 'id']).execute();
  await db.schema.createIndex('messages_campaign').on('messages').columns(['campaign_id', 'state']).execute();
  await db.schema.createIndex('messages_external').on('messages').columns(['account_id', 'external_id']).execute();
  await db.schema
    .createIndex('messages_phone_time')
    .on('messages')
    .columns(['account_id', 'phone', 'created_at'])
    .execute();
  await db.schema
    .createIndex('messages_unsubscribe_code')
    .on('messages')
    .column('unsubscribe_code')
    .unique()
    .where(sql.ref('unsubscribe_code'), 'is not', null)
    .execute();

  await withId(db.schema.createTable('short_links'), dialect)
    .addColumn('code', 'text', (c) => c.notNull().unique())
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('campaign_id', 'bigint', (c) => c.notNull().references('campaigns.id').onDelete('cascade'))
    .addColumn('link_key', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('clicks', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('short_links_campaign').on('short_links').column('campaign_id').execute();

  await withId(db.schema.createTable('link_clicks'), dialect)
    .addColumn('short_link_id', 'bigint', (c) => c.notNull().references('short_links.id').onDelete('cascade'))
    .addColumn('clicked_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('link_clicks_link').on('link_clicks').columns(['short_link_id', 'clicked_at']).execute();

  await withId(db.schema.createTable('sender_verifications'), dialect)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('verified_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('sender_verifications_account')
    .on('sender_verifications')
    .columns(['account_id', 'phone'])
    .execute();
}
