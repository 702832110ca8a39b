// What the console keeps per account for its everyday use and its own security:
// - low_balance_credits: the customer's threshold for the overview's low-balance warning (null: no warning);
// - suspended_at: a reseller suspended this sub-account (its tokens and console sign-in are refused until it is
//   resumed; nothing of its data changes);
// - totp_secret: the two-factor secret (RFC 6238), sealed with the service's key, null when two-factor is off;
//   totp_recovery: the unused recovery codes' SHA-256 hashes (JSON array);
// - console_login_failures.address: the client address of a failed sign-in, so a lockout counts a username's
//   failures per address (someone elsewhere cannot lock the owner out);
// - campaigns by (account_id, created_at): the overview's sends today and this month.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../types.ts';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('low_balance_credits', 'bigint').execute();
  await db.schema.alterTable('accounts').addColumn('suspended_at', 'bigint').execute();
  await db.schema.alterTable('accounts').addColumn('totp_secret', 'text').execute();
  await db.schema.alterTable('accounts').addColumn('totp_recovery', 'text').execute();
  await db.schema
    .alterTable('console_login_failures')
    .addColumn('address', 'text', (c) => c.notNull().defaultTo(sql.lit('')))
    .execute();
  await db.schema
    .createIndex('console_login_failures_user_address')
    .on('console_login_failures')
    .columns(['username', 'address', 'failed_at'])
    .execute();
  await db.schema.createIndex('campaigns_account_time').on('campaigns').columns(['account_id', 'created_at']).execute();
}
