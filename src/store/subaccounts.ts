// A reseller's sub-accounts as the reseller sees them: who they are and their balances.
import type { Queryable } from './engine/db.ts';

export interface SubAccountBalance {
  id: number;
  username: string;
  name: string;
  credits: number;
  intlAgorot: number;
}

/** The reseller's sub-accounts by username. */
export async function listSubAccounts(db: Queryable, resellerId: number): Promise<SubAccountBalance[]> {
  const rows = await db
    .selectFrom('accounts')
    .select(['id', 'username', 'name', 'credits', 'intl_agorot'])
    .where('parent_id', '=', resellerId)
    .orderBy('username')
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    username: r.username,
    name: r.name,
    credits: Number(r.credits),
    intlAgorot: Number(r.intl_agorot),
  }));
}
