// One-time codes (hashed, with their attempts and expiry), failed validations per phone, the dispatcher's
// priority lane and sealed message values (a code travels encrypted until it is submitted), and the account
// fields of sub-accounts and one-time codes.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../types.ts';
import { withId } from './columns.ts';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable('otp_codes'), dialect)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('app_id', 'integer', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('max_tries', 'integer', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('replaced_at', 'bigint')
    .addColumn('campaign_id', 'bigint')
    .execute();
  await db.schema
    .createIndex('otp_codes_phone')
    .on('otp_codes')
    .columns(['account_id', 'phone', 'created_at'])
    .execute();
  await db.schema.createIndex('otp_codes_account_time').on('otp_codes').columns(['account_id', 'created_at']).execute();

  await withId(db.schema.createTable('otp_failures'), dialect)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('failed_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('otp_failures_phone')
    .on('otp_failures')
    .columns(['account_id', 'phone', 'failed_at'])
    .execute();

  await db.schema
    .alterTable('messages')
    .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('messages').addColumn('sealed', 'text').execute();
  // The priority lane's claim looks only at queued priority messages; campaign traffic never enters this index.
  await db.schema
    .createIndex('messages_priority_queue')
    .on('messages')
    .columns(['next_attempt_at', 'id'])
    .where(sql<boolean>`state = 'queued' and priority > 0`)
    .execute();

  await db.schema.alterTable('accounts').addColumn('otp_phone', 'text').execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('otp_international', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
