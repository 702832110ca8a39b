// A reseller's control of its sub-accounts from the console: suspend and resume one (only its own), and read
// whether a sub-account is suspended. Suspension changes nothing else of the account's data.
import type { Queryable } from './engine/db.ts';

/** Suspension times of the reseller's sub-accounts, by username (null: active). */
export async function subAccountSuspensions(db: Queryable, resellerId: number): Promise<Map<string, number | null>> {
  const rows = await db
    .selectFrom('accounts')
    .select(['username', 'suspended_at'])
    .where('parent_id', '=', resellerId)
    .execute();
  return new Map(rows.map((r) => [r.username, r.suspended_at === null ? null : Number(r.suspended_at)]));
}
