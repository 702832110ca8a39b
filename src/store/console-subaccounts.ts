// A reseller's control of its sub-accounts from the console: suspend and resume one (only its own), and read
// whether a sub-account is suspended. Suspension changes nothing else of the account's data.
import type { Queryable } from './engine/db.ts';

/**
 * Suspends (`at`) or resumes (null) the reseller's sub-account `username`; false when it is not one of its own, or
 * when the operator suspended or closed it (the reseller neither lifts nor overrides the operator's hold).
 */
export async function setSubAccountSuspended(
  db: Queryable,
  resellerId: number,
  username: string,
  at: number | null,
): Promise<boolean> {
  const result = await db
    .updateTable('accounts')
    .set({ suspended_at: at, suspended_by: at === null ? null : 'reseller' })
    .where('username', '=', username)
    .where('parent_id', '=', resellerId)
    .where((eb) => eb.or([eb('suspended_by', 'is', null), eb('suspended_by', '=', 'reseller')]))
    .where('closed_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Suspension times of the reseller's sub-accounts, by username (null: active). */
export async function subAccountSuspensions(db: Queryable, resellerId: number): Promise<Map<string, number | null>> {
  const rows = await db
    .selectFrom('accounts')
    .select(['username', 'suspended_at'])
    .where('parent_id', '=', resellerId)
    .execute();
  return new Map(rows.map((r) => [r.username, r.suspended_at === null ? null : Number(r.suspended_at)]));
}
