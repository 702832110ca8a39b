// One carrier's outcomes over time, for its health chart on /admin/carriers/NAME: the messages it took, by when they
// were accepted (one bucket each `bucketMs`), as delivered, failed or still pending. Read through the index on
// (carrier, created_at) of migration 0049.
import { sql } from 'kysely';
import { isFinalStatus } from '../domain/lifecycle.ts';
import { DELIVERY, type DeliveryStatus } from '../domain/status.ts';
import type { Queryable } from './engine/db.ts';

/** One bucket of a carrier's timeline: its start (ms since the epoch) and the outcomes of its messages. */
export interface CarrierTimelinePoint {
  at: number;
  delivered: number;
  failed: number;
  pending: number;
}

const DELIVERED = new Set<number>([DELIVERY.DELIVERED, DELIVERY.DELIVERED_LEGACY]);

/** The buckets from `since` to `until` (every one, empty ones as zeros), oldest first. */
export async function carrierTimeline(
  db: Queryable,
  carrier: string,
  since: number,
  until: number,
  bucketMs: number,
): Promise<CarrierTimelinePoint[]> {
  const rows = await db
    .selectFrom('messages')
    .select([
      sql<number>`created_at / ${sql.lit(bucketMs)}`.as('bucket'),
      'status',
      (eb) => eb.fn.countAll<number>().as('n'),
    ])
    .where('carrier', '=', carrier)
    .where('created_at', '>=', since)
    .where('created_at', '<', until)
    .groupBy([sql`bucket`, 'status'])
    .execute();
  const first = Math.floor(since / bucketMs);
  const points: CarrierTimelinePoint[] = [];
  for (let b = first; b * bucketMs < until; b++) points.push({ at: b * bucketMs, delivered: 0, failed: 0, pending: 0 });
  for (const r of rows) {
    const point = points[Number(r.bucket) - first];
    if (!point) continue;
    const status = r.status === null ? null : (Number(r.status) as DeliveryStatus);
    const n = Number(r.n);
    if (status !== null && DELIVERED.has(status)) point.delivered += n;
    else if (isFinalStatus(status)) point.failed += n;
    else point.pending += n;
  }
  return points;
}
