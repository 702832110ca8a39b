// The SMS parts each carrier took per day (carrier_daily_usage): added in the transaction that records submits,
// read by every dispatcher node (its view of the daily caps) and by `yona admin carriers`.
import { sql } from 'kysely';
import type { Queryable } from './engine/db.ts';

/** Adds parts to carriers' counts of one day. Carriers in name order, so concurrent recorders never deadlock. */
export async function addCarrierUsage(db: Queryable, day: string, partsByCarrier: Map<string, number>): Promise<void> {
  for (const carrier of [...partsByCarrier.keys()].sort()) {
    const parts = partsByCarrier.get(carrier) ?? 0;
    if (parts <= 0) continue;
    await db
      .insertInto('carrier_daily_usage')
      .values({ carrier, day, parts })
      .onConflict((oc) =>
        oc.columns(['carrier', 'day']).doUpdateSet({ parts: sql`carrier_daily_usage.parts + ${parts}` }),
      )
      .execute();
  }
}

/** Parts taken on `day`, by carrier (carriers that took none are absent). */
export async function carrierUsageOn(db: Queryable, day: string): Promise<Map<string, number>> {
  const rows = await db.selectFrom('carrier_daily_usage').select(['carrier', 'parts']).where('day', '=', day).execute();
  return new Map(rows.map((r) => [r.carrier, Number(r.parts)]));
}
