// What the margins report reads: per account, the messages carriers took in a span of time, their parts, what the
// account was charged for them (the message rows' prices, net of refunds) and what the carriers charge
// (messages.carrier_cost), with each account's reseller.
import { sql } from 'kysely';
import type { Queryable } from './engine/db.ts';

/** One account's traffic in the span. */
export interface AccountTraffic {
  accountId: number;
  username: string;
  /** The reseller's username, for a sub-account. */
  reseller: string | null;
  isReseller: boolean;
  messages: number;
  parts: number;
  chargedCredits: number;
  chargedAgorot: number;
  /** Thousandths of an agora. */
  carrierCostMilli: number;
  /** Messages taken by a carrier with no price (no carrier cost recorded). */
  unpriced: number;
}

/**
 * Every account that sent through a carrier in [start, end) (by the time the carrier took each message), and
 * every reseller of one, with their sums.
 */
export async function trafficBetween(db: Queryable, start: number, end: number): Promise<AccountTraffic[]> {
  const sums = await db
    .selectFrom('messages')
    .select([
      'account_id',
      sql<number>`count(*)`.as('messages'),
      sql<number>`coalesce(sum(parts), 0)`.as('parts'),
      sql<number>`coalesce(sum(cost_credits), 0)`.as('credits'),
      sql<number>`coalesce(sum(cost_agorot), 0)`.as('agorot'),
      sql<number>`coalesce(sum(carrier_cost), 0)`.as('carrier_cost'),
      sql<number>`sum(case when carrier_cost is null then 1 else 0 end)`.as('unpriced'),
    ])
    .where('submitted_at', '>=', start)
    .where('submitted_at', '<', end)
    // Accepted before the span ended: keeps PostgreSQL to the months that may hold such rows.
    .where('created_at', '<', end)
    .where('carrier', 'is not', null)
    .groupBy('account_id')
    .execute();
  const accounts = await db
    .selectFrom('accounts as a')
    .leftJoin('accounts as p', 'p.id', 'a.parent_id')
    .select(['a.id', 'a.username', 'a.is_reseller', 'a.parent_id', 'p.username as reseller'])
    .execute();
  const byId = new Map(accounts.map((a) => [Number(a.id), a]));
  const traffic = new Map<number, AccountTraffic>();
  const entry = (id: number): AccountTraffic | undefined => {
    const a = byId.get(id);
    if (!a) return undefined;
    let t = traffic.get(id);
    if (!t) {
      t = {
        accountId: id,
        username: a.username,
        reseller: a.reseller ?? null,
        isReseller: Number(a.is_reseller) === 1,
        messages: 0,
        parts: 0,
        chargedCredits: 0,
        chargedAgorot: 0,
        carrierCostMilli: 0,
        unpriced: 0,
      };
      traffic.set(id, t);
    }
    return t;
  };
  for (const s of sums) {
    const t = entry(Number(s.account_id));
    if (!t) continue;
    t.messages = Number(s.messages);
    t.parts = Number(s.parts);
    t.chargedCredits = Number(s.credits);
    t.chargedAgorot = Number(s.agorot);
    t.carrierCostMilli = Number(s.carrier_cost);
    t.unpriced = Number(s.unpriced);
    const parent = byId.get(Number(s.account_id))?.parent_id;
    if (parent !== null && parent !== undefined) entry(Number(parent));
  }
  return [...traffic.values()];
}
