// The operator's hold on an account:
// - accounts.suspended_by: who suspended it, 'reseller' (the console's sub-account control) or 'operator'
//   (`yona admin suspend`); null with suspended_at set is a reseller's suspension made before this column. A reseller
//   neither lifts nor overrides the operator's suspension.
// - accounts.suspension_reason: the operator's --reason, shown in `yona admin accounts`, never to the customer.
// - accounts.closed_at: `yona admin close-account`; a closed account is refused everywhere, its data kept.
// - accounts.push_allow_private: 1 lets this account's push URLs reach private and loopback addresses
//   (`yona admin push allow-private`), as YONA_PUSH_ALLOW_PRIVATE does for every account.
import type { Kysely } from 'kysely';
import type { Dialect } from '../types.ts';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('suspended_by', 'text').execute();
  await db.schema.alterTable('accounts').addColumn('suspension_reason', 'text').execute();
  await db.schema.alterTable('accounts').addColumn('closed_at', 'bigint').execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('push_allow_private', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
