// What keeps /admin quick on a busy store: the day's chart and the day's delivery rates read tens of thousands of
// index entries per view (a day of traffic), so a node keeps what cannot change or may lag a little. A 10-minute
// step of the chart that ended more than SETTLE_MS ago never changes (acceptance, submission, receipt and
// arrival times are written as they happen), so it is read once and kept until it leaves the day; only the newest
// steps are read again. The day's delivery rate per carrier changes with every receipt: it is kept DAY_RATES_MS,
// and views meanwhile (from every operator) share it. Kept per store, in memory: a restart reads them again.
import type { CarrierOutcomes } from '../../domain/alerts.ts';
import type { TrafficBucket } from '../../store/dashboard.ts';
import type { Queryable } from '../../store/engine/db.ts';
import { carrierOutcomesSince, trafficBuckets } from '../../store/read-models.ts';

/** Past its end by this long, a step holds every row it ever will (commits, clocks of other nodes). */
const SETTLE_MS = 2 * 60_000;
/** How old the day's delivery rates may be. */
export const DAY_RATES_MS = 30_000;

const steps = new WeakMap<object, Map<number, TrafficBucket>>();
const dayRates = new WeakMap<object, { until: number; since: number; outcomes: Promise<CarrierOutcomes[]> }>();

/** The flows in steps of `step` over [from, to) at `now`: the settled steps kept, the rest read. */
export async function dayBuckets(
  db: Queryable,
  from: number,
  to: number,
  step: number,
  now: number,
): Promise<TrafficBucket[]> {
  let kept = steps.get(db);
  if (!kept) steps.set(db, (kept = new Map()));
  for (const at of kept.keys()) if (at < from || at >= to) kept.delete(at);
  let start = from;
  while (start < to && kept.has(start)) start += step;
  const fresh = start < to ? await trafficBuckets(db, start, to, step) : [];
  for (const b of fresh) if (b.at + step + SETTLE_MS <= now) kept.set(b.at, b);
  const settled: TrafficBucket[] = [];
  for (let at = from; at < start; at += step) settled.push(kept.get(at)!);
  return [...settled, ...fresh];
}

/** Final outcomes per carrier of the messages submitted over the day before `now`, at most DAY_RATES_MS old. */
export function dayOutcomes(db: Queryable, now: number, day: number): Promise<CarrierOutcomes[]> {
  const held = dayRates.get(db);
  if (held && held.until > now && held.since <= now) return held.outcomes;
  const outcomes = carrierOutcomesSince(db, now - day);
  dayRates.set(db, { until: now + DAY_RATES_MS, since: now, outcomes });
  outcomes.catch(() => dayRates.delete(db));
  return outcomes;
}
