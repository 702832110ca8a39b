// The last 24 hours of /admin, in 10-minute steps ending with the step that holds now: the four flows per step and
// the final outcomes per carrier of the messages taken in them. The steps before the current one are read once per
// step and kept (per store) until the next step begins; only the current step is read on every request. So the
// page reads a day of messages once every 10 minutes, not on every visit; what changes in a past step (a receipt
// for a message taken an hour ago) shows at the next step.
import type { CarrierOutcomes } from '../../domain/alerts.ts';
import { carrierOutcomesSince, trafficBuckets, type TrafficBucket } from '../../store/read-models.ts';
import type { AdminContext } from './router.ts';

type Db = AdminContext['app']['store']['db'];

export const STEP_MS = 10 * 60_000;
export const DAY_MS = 24 * 3600_000;

export interface DayFigures {
  buckets: TrafficBucket[];
  outcomes: CarrierOutcomes[];
}

const kept = new WeakMap<object, { stepStart: number; past: DayFigures }>();

function plusOutcomes(a: CarrierOutcomes[], b: CarrierOutcomes[]): CarrierOutcomes[] {
  const by = new Map<string, CarrierOutcomes>();
  for (const o of [...a, ...b]) {
    const was = by.get(o.carrier) ?? { carrier: o.carrier, delivered: 0, final: 0 };
    by.set(o.carrier, { carrier: o.carrier, delivered: was.delivered + o.delivered, final: was.final + o.final });
  }
  return [...by.values()];
}

/** The day's steps and outcomes per carrier up to `now`. */
export async function dayFigures(db: Db, now: number): Promise<DayFigures> {
  const stepStart = Math.floor(now / STEP_MS) * STEP_MS;
  const from = stepStart + STEP_MS - DAY_MS;
  let entry = kept.get(db);
  if (!entry || entry.stepStart !== stepStart) {
    const past = {
      buckets: await trafficBuckets(db, from, stepStart, STEP_MS),
      outcomes: await carrierOutcomesSince(db, from, stepStart),
    };
    entry = { stepStart, past };
    kept.set(db, entry);
  }
  const [current] = await trafficBuckets(db, stepStart, stepStart + STEP_MS, STEP_MS);
  const live = await carrierOutcomesSince(db, stepStart);
  return { buckets: [...entry.past.buckets, current], outcomes: plusOutcomes(entry.past.outcomes, live) };
}
