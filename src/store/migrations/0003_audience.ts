// The audience tables: contact lists and contacts, the blocklist (and its removal log), birthday campaigns.
import type { Kysely } from 'kysely';
import type { Dialect } from '../types.ts';
import { withId } from './columns.ts';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable('contact_lists'), dialect)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('contact_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('contact_lists_account').on('contact_lists').columns(['account_id', 'id']).execute();

  await withId(db.schema.createTable('contacts'), dialect)
    .addColumn('list_id', 'bigint', (c) => c.notNull().references('contact_lists.id').onDelete('cascade'))
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('df1', 'text')
    .addColumn('df2', 'text')
    .addColumn('df3', 'text')
    .addColumn('df4', 'text')
    .addColumn('df5', 'text')
    .addColumn('df6', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  // (list_id, id): keyset streaming and paging; (list_id, phone): no duplicates, fast removal by number.
  await db.schema.createIndex('contacts_list_id').on('contacts').columns(['list_id', 'id']).execute();
  await db.schema.createIndex('contacts_list_phone').on('contacts').columns(['list_id', 'phone']).unique().execute();

  await withId(db.schema.createTable('blocklist'), dialect)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('blocklist_unique', ['account_id', 'phone'])
    .execute();
  await db.schema.createIndex('blocklist_account_time').on('blocklist').columns(['account_id', 'created_at']).execute();

  await withId(db.schema.createTable('blocklist_removals'), dialect)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('blocked_at', 'bigint', (c) => c.notNull())
    .addColumn('removed_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('blocklist_removals_account')
    .on('blocklist_removals')
    .columns(['account_id', 'removed_at'])
    .execute();

  await withId(db.schema.createTable('birthday_campaigns'), dialect)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('list_id', 'bigint', (c) => c.notNull().references('contact_lists.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('hour', 'integer', (c) => c.notNull())
    .addColumn('dob_field', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('checked_day', 'integer')
    .addColumn('checked_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('birthday_campaigns_account')
    .on('birthday_campaigns')
    .columns(['account_id', 'id'])
    .execute();
  await db.schema.createIndex('birthday_campaigns_list').on('birthday_campaigns').columns(['list_id']).execute();

  await withId(db.schema.createTable('birthday_sends'), dialect)
    .addColumn('campaign_id', 'bigint', (c) => c.notNull().references('birthday_campaigns.id').onDelete('cascade'))
    .addColumn('contact_id', 'bigint', (c) => c.notNull())
    .addColumn('year', 'integer', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('birthday_sends_once', ['campaign_id', 'contact_id', 'year'])
    .execute();
}
