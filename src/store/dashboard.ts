// What the operator's overview (/admin) reads of the traffic, over every account and every node (the store is
// shared, so its counts are the cluster's): messages accepted (by created_at), taken by a carrier (submitted_at),
// given their final status by a receipt (status_at of a message now done) and inbound messages received, in a
// bounded window, each read from an index on its time (migrations 0060, 0058, 0017) without touching the rows;
// and the push URLs failing or disabled now.
import { sql, type RawBuilder } from 'kysely';
import type { Queryable } from './engine/db.ts';

/** The four flows the overview shows. */
export const TRAFFIC_FLOWS = ['accepts', 'submits', 'receipts', 'inbound'] as const;
export type TrafficFlow = (typeof TRAFFIC_FLOWS)[number];
export type TrafficCounts = Record<TrafficFlow, number>;

/** One bucket of the day's chart: its start and the four counts in it. */
export interface TrafficBucket extends TrafficCounts {
  at: number;
}

// Each flow's count grouped by bucket over [from, to): the bucket's number and the count.
function flowQuery(db: Queryable, flow: TrafficFlow, from: number, to: number, bucketMs: number) {
  const bucket = (column: string): RawBuilder<number> =>
    sql<number>`(${sql.ref(column)} - ${sql.lit(from)}) / ${sql.lit(bucketMs)}`;
  const n = sql<number>`count(*)`;
  switch (flow) {
    case 'accepts':
      return db
        .selectFrom('messages')
        .select([bucket('created_at').as('b'), n.as('n')])
        .where('created_at', '>=', from)
        .where('created_at', '<', to)
        .groupBy(sql`1`);
    case 'submits':
      return db
        .selectFrom('messages')
        .select([bucket('submitted_at').as('b'), n.as('n')])
        .where('submitted_at', '>=', from)
        .where('submitted_at', '<', to)
        .groupBy(sql`1`);
    case 'receipts':
      return db
        .selectFrom('messages')
        .select([bucket('status_at').as('b'), n.as('n')])
        .where('status_at', '>=', from)
        .where('status_at', '<', to)
        .where('state', '=', 'done')
        .groupBy(sql`1`);
    case 'inbound':
      return db
        .selectFrom('inbound_messages')
        .select([bucket('received_at').as('b'), n.as('n')])
        .where('received_at', '>=', from)
        .where('received_at', '<', to)
        .groupBy(sql`1`);
  }
}

/** The four flows counted in buckets of `bucketMs` over [from, to), every bucket listed (empty ones as zeros). */
export async function trafficBuckets(
  db: Queryable,
  from: number,
  to: number,
  bucketMs: number,
): Promise<TrafficBucket[]> {
  const count = Math.ceil((to - from) / bucketMs);
  const buckets: TrafficBucket[] = Array.from({ length: count }, (_, i) => ({
    at: from + i * bucketMs,
    accepts: 0,
    submits: 0,
    receipts: 0,
    inbound: 0,
  }));
  for (const flow of TRAFFIC_FLOWS) {
    const rows = await flowQuery(db, flow, from, to, bucketMs).execute();
    for (const r of rows) {
      const i = Math.floor(Number(r.b));
      if (i >= 0 && i < count) buckets[i][flow] += Number(r.n);
    }
  }
  return buckets;
}

/** The four flows counted over [from, to). */
export async function trafficCounts(db: Queryable, from: number, to: number): Promise<TrafficCounts> {
  const [one] = await trafficBuckets(db, from, to, to - from);
  return { accepts: one.accepts, submits: one.submits, receipts: one.receipts, inbound: one.inbound };
}

/** A push URL that failed since its last success, or was disabled after too many failures. */
export interface FailingPushUrl {
  username: string;
  type: string;
  url: string;
  disabled: boolean;
  failures: number;
  /** When it last failed (null: not recorded). */
  lastFailureAt: number | null;
  disabledReason: string | null;
}

/** Push URLs of every account failing or disabled now, disabled first, at most `limit`. */
export async function failingPushUrlsOfAll(db: Queryable, limit = 50): Promise<FailingPushUrl[]> {
  const rows = await db
    .selectFrom('push_registrations as p')
    .innerJoin('accounts as a', 'a.id', 'p.account_id')
    .select([
      'a.username',
      'p.type',
      'p.url',
      'p.state',
      'p.consecutive_failures',
      'p.last_failure_at',
      'p.disabled_reason',
    ])
    .where('p.deleted_at', 'is', null)
    .where((eb) => eb.or([eb('p.state', '=', 'disabled'), eb('p.consecutive_failures', '>', 0)]))
    .orderBy(sql`case when p.state = 'disabled' then 0 else 1 end`)
    .orderBy('a.username')
    .orderBy('p.type')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    username: r.username,
    type: r.type,
    url: r.url,
    disabled: r.state === 'disabled',
    failures: Number(r.consecutive_failures),
    lastFailureAt: r.last_failure_at === null ? null : Number(r.last_failure_at),
    disabledReason: r.disabled_reason,
  }));
}
