// What the margins report reads: the messages carriers took in a span of time (by the time the carrier took each
// one, messages.submitted_at), their parts, what the account was charged for them (the message rows' prices, net
// of refunds) and what the carriers charge (messages.carrier_cost): per account with each account's reseller, per
// channel, and per month over several months in one pass. domain/margins.ts turns these sums into the report.
import { sql, type RawBuilder } from 'kysely';
import { channelOfStored } from '../domain/channels.ts';
import { NO_SUMS, plusSums, type AccountTraffic, type MarginSums } from '../domain/margins.ts';
import type { Queryable } from './engine/db.ts';

export type { AccountTraffic } from '../domain/margins.ts';

const sums = [
  sql<number>`count(*)`.as('messages'),
  sql<number>`coalesce(sum(parts), 0)`.as('parts'),
  sql<number>`coalesce(sum(cost_credits), 0)`.as('credits'),
  sql<number>`coalesce(sum(cost_agorot), 0)`.as('agorot'),
  sql<number>`coalesce(sum(carrier_cost), 0)`.as('carrier_cost'),
  sql<number>`sum(case when carrier_cost is null then 1 else 0 end)`.as('unpriced'),
] as const;

// Messages a carrier took in [start, end).
function taken(db: Queryable, start: number, end: number) {
  return (
    db
      .selectFrom('messages')
      .where('submitted_at', '>=', start)
      .where('submitted_at', '<', end)
      // Accepted before the span ended: keeps PostgreSQL to the months that may hold such rows.
      .where('created_at', '<', end)
      // Taken by a carrier; written as an expression so that no planner walks the carrier index over every message.
      .where(sql`coalesce(carrier, '')`, '<>', '')
  );
}

function sumsOf(r: {
  messages: number;
  parts: number;
  credits: number;
  agorot: number;
  carrier_cost: number;
  unpriced: number;
}): MarginSums {
  return {
    messages: Number(r.messages),
    parts: Number(r.parts),
    credits: Number(r.credits),
    agorot: Number(r.agorot),
    costMilli: Number(r.carrier_cost),
    unpriced: Number(r.unpriced ?? 0),
  };
}

/**
 * Every account that sent through a carrier in [start, end) (by the time the carrier took each message), and
 * every reseller of one, with their sums.
 */
export async function trafficBetween(db: Queryable, start: number, end: number): Promise<AccountTraffic[]> {
  const rows = await taken(db, start, end)
    .select(['account_id', ...sums])
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
        ...NO_SUMS,
      };
      traffic.set(id, t);
    }
    return t;
  };
  for (const r of rows) {
    const t = entry(Number(r.account_id));
    if (!t) continue;
    Object.assign(t, sumsOf(r));
    const parent = byId.get(Number(r.account_id))?.parent_id;
    if (parent !== null && parent !== undefined) entry(Number(parent));
  }
  return [...traffic.values()];
}

/** The sums of [start, end) per channel (its registered name: 'sms', 'voice', 'whatsapp', ...). */
export async function trafficByChannel(
  db: Queryable,
  start: number,
  end: number,
): Promise<Array<{ channel: string } & MarginSums>> {
  const rows = await taken(db, start, end)
    .select(['channel', ...sums])
    .groupBy('channel')
    .execute();
  const byName = new Map<string, MarginSums>();
  for (const r of rows) {
    const channel = channelOfStored(r.channel);
    byName.set(channel, plusSums(byName.get(channel) ?? NO_SUMS, sumsOf(r)));
  }
  return [...byName].map(([channel, s]) => ({ channel, ...s }));
}

/**
 * The sums of consecutive spans in one pass: `bounds` are the spans' edges in order (n + 1 edges for n spans);
 * answers one entry per span, empty ones as zeros.
 */
export async function trafficBySpan(db: Queryable, bounds: number[]): Promise<MarginSums[]> {
  const spans = bounds.length - 1;
  if (spans < 1) return [];
  let index: RawBuilder<number> = sql<number>`${sql.lit(spans - 1)}`;
  for (let i = spans - 2; i >= 0; i--)
    index = sql<number>`case when submitted_at < ${sql.lit(bounds[i + 1])} then ${sql.lit(i)} else ${index} end`;
  const rows = await taken(db, bounds[0], bounds[spans])
    .select([index.as('span'), ...sums])
    .groupBy(sql`1`)
    .execute();
  const out = Array.from({ length: spans }, () => ({ ...NO_SUMS }));
  for (const r of rows) out[Number(r.span)] = sumsOf(r);
  return out;
}
