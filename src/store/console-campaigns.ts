// Read models of the console's campaign pages: a page of campaigns with their outcome counts, a campaign's
// deliveries over time, and a page of its messages (by phone or external id). Every query names the account.
import { sql } from 'kysely';
import type { Queryable } from './engine/db.ts';
import type { Campaign } from './campaigns.ts';
import { DELIVERY } from '../domain/status.ts';

export interface Outcomes {
  delivered: number;
  failed: number;
  pending: number;
  cancelled: number;
}

/** The account's campaigns, newest first, older than `beforeId` when given; of one kind, or none of `exclude`. */
export async function campaignsPage(
  db: Queryable,
  accountId: number,
  beforeId: number | undefined,
  limit: number,
  kinds: { only?: string; exclude?: string[] } = {},
): Promise<Campaign[]> {
  let q = db.selectFrom('campaigns').selectAll().where('account_id', '=', accountId);
  if (kinds.only) q = q.where('kind', '=', kinds.only);
  else if (kinds.exclude?.length) q = q.where('kind', 'not in', kinds.exclude);
  if (beforeId !== undefined) q = q.where('id', '<', beforeId);
  return q.orderBy('id', 'desc').limit(limit).execute();
}

/** Delivered (status 102), failed (any other final outcome), pending and cancelled messages per campaign. */
export async function campaignOutcomes(
  db: Queryable,
  accountId: number,
  campaignIds: number[],
): Promise<Map<number, Outcomes>> {
  const out = new Map<number, Outcomes>(
    campaignIds.map((id) => [id, { delivered: 0, failed: 0, pending: 0, cancelled: 0 }]),
  );
  if (campaignIds.length === 0) return out;
  const rows = await db
    .selectFrom('messages')
    .select([
      'campaign_id',
      'state',
      sql<number>`case when status = ${sql.lit(DELIVERY.DELIVERED)} then 1 else 0 end`.as('ok'),
      (eb) => eb.fn.countAll<number>().as('n'),
    ])
    .where('campaign_id', 'in', campaignIds)
    .where('account_id', '=', accountId)
    .groupBy(['campaign_id', 'state', sql`case when status = ${sql.lit(DELIVERY.DELIVERED)} then 1 else 0 end`])
    .execute();
  for (const r of rows) {
    const o = out.get(Number(r.campaign_id))!;
    const n = Number(r.n);
    if (r.state === 'cancelled') o.cancelled += n;
    else if (r.state === 'done' && Number(r.ok) === 1) o.delivered += n;
    else if (r.state === 'done' || r.state === 'failed' || r.state === 'skipped') o.failed += n;
    else o.pending += n;
  }
  return out;
}

export interface TimelinePoint {
  at: number;
  delivered: number;
  failed: number;
}

/** Final outcomes of a campaign's messages counted per time bucket (about `buckets` of them), oldest first. */
export async function campaignTimeline(
  db: Queryable,
  accountId: number,
  campaignId: number,
  buckets = 60,
): Promise<{ bucketMs: number; points: TimelinePoint[] }> {
  const span = await db
    .selectFrom('messages')
    .select((eb) => [eb.fn.min('status_at').as('first'), eb.fn.max('status_at').as('last')])
    .where('campaign_id', '=', campaignId)
    .where('account_id', '=', accountId)
    .where('state', 'in', ['done', 'failed', 'skipped'])
    .executeTakeFirst();
  if (!span?.first) return { bucketMs: 1000, points: [] };
  const first = Number(span.first);
  const last = Number(span.last);
  const bucketMs = Math.max(1000, Math.ceil((last - first + 1) / buckets / 1000) * 1000);
  // Literals (whole numbers computed here), not parameters: PostgreSQL matches the select and group by
  // expressions only when they are the same text. cast: the division stays whole (one group per bucket).
  const bucket = sql<number>`cast((status_at - ${sql.lit(first)}) / ${sql.lit(bucketMs)} as integer)`;
  const rows = await db
    .selectFrom('messages')
    .select([
      bucket.as('b'),
      sql<number>`sum(case when status = ${sql.lit(DELIVERY.DELIVERED)} then 1 else 0 end)`.as('ok'),
      (eb) => eb.fn.countAll<number>().as('n'),
    ])
    .where('campaign_id', '=', campaignId)
    .where('account_id', '=', accountId)
    .where('state', 'in', ['done', 'failed', 'skipped'])
    .groupBy(bucket)
    .orderBy(bucket)
    .execute();
  return {
    bucketMs,
    points: rows.map((r) => ({
      at: first + Math.floor(Number(r.b)) * bucketMs,
      delivered: Number(r.ok),
      failed: Number(r.n) - Number(r.ok),
    })),
  };
}

export interface MessageRow {
  id: number;
  phone: string;
  external_id: string | null;
  state: string;
  status: number | null;
  status_at: number | null;
  parts: number;
}

/** A page of a campaign's messages in id order after `afterId`, optionally only one phone or one external id. */
export async function campaignMessagesPage(
  db: Queryable,
  accountId: number,
  campaignId: number,
  o: { afterId?: number; phone?: string; externalId?: string; limit: number },
): Promise<MessageRow[]> {
  let q = db
    .selectFrom('messages')
    .select(['id', 'phone', 'external_id', 'state', 'status', 'status_at', 'parts'])
    .where('account_id', '=', accountId)
    .where('campaign_id', '=', campaignId);
  if (o.afterId !== undefined) q = q.where('id', '>', o.afterId);
  if (o.phone !== undefined) q = q.where('phone', '=', o.phone);
  if (o.externalId !== undefined) q = q.where('external_id', '=', o.externalId);
  const rows = await q.orderBy('id').limit(o.limit).execute();
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    parts: Number(r.parts),
    status: r.status === null ? null : Number(r.status),
    status_at: r.status_at === null ? null : Number(r.status_at),
  }));
}
