// Ingress events: receipts and inbound messages carriers posted to their webhooks. An API node stores them before
// answering (a repeat of the same event is stored once); a receipts node claims waiting ones under a short lease,
// processes them and marks them processed. Processed rows are kept a while so that late repeats stay recognised.
import type { Queryable } from './engine/db.ts';

/** One event to store, as the webhook's protocol read it. */
export interface NewIngressEvent {
  protocol: string;
  carrier: string;
  kind: 'receipt' | 'inbound';
  key: string;
  /** The neutral event (Receipt or InboundSms), as JSON. */
  event: string;
}

/** A stored event claimed for processing. */
export interface IngressEventRow {
  id: number;
  carrier: string;
  kind: string;
  event: string;
}

/** Rows one INSERT carries (seven parameters each, well under either store's limit). */
const INSERT_ROWS = 500;

/** Stores events (in the caller's transaction); a repeat of a stored one is left out. Returns how many were new. */
export async function insertIngressEvents(db: Queryable, events: NewIngressEvent[], now: number): Promise<number> {
  let stored = 0;
  for (let i = 0; i < events.length; i += INSERT_ROWS) {
    const result = await db
      .insertInto('ingress_events')
      .values(
        events.slice(i, i + INSERT_ROWS).map((e) => ({
          protocol: e.protocol,
          carrier: e.carrier,
          kind: e.kind,
          event_key: e.key,
          event: e.event,
          received_at: now,
          processed_at: null,
        })),
      )
      // A repeat within the same rows is left out too (DO NOTHING takes the first of them).
      .onConflict((oc) => oc.columns(['carrier', 'kind', 'event_key']).doNothing())
      .executeTakeFirst();
    stored += Number(result.numInsertedOrUpdatedRows ?? 0n);
  }
  return stored;
}

/** Takes up to `limit` waiting events no other node holds, holding them for `leaseMs`; oldest first. */
export async function claimIngressEvents(
  db: Queryable,
  now: number,
  leaseMs: number,
  limit: number,
): Promise<IngressEventRow[]> {
  const waiting = db
    .selectFrom('ingress_events')
    .select('id')
    .where('processed_at', 'is', null)
    .where('lease_until', '<=', now)
    .orderBy('id')
    .limit(limit);
  // The lease is re-checked in the update itself: of two nodes claiming at once, each row goes to one.
  const rows = await db
    .updateTable('ingress_events')
    .set({ lease_until: now + leaseMs })
    .where('id', 'in', waiting)
    .where('processed_at', 'is', null)
    .where('lease_until', '<=', now)
    .returning(['id', 'carrier', 'kind', 'event'])
    .execute();
  return rows.map((r) => ({ ...r, id: Number(r.id) })).sort((a, b) => a.id - b.id);
}

/** Marks events processed; returns how many were still waiting (0 for one another node processed first). */
export async function markIngressProcessed(db: Queryable, ids: number[], now: number): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db
    .updateTable('ingress_events')
    .set({ processed_at: now })
    .where('id', 'in', ids)
    .where('processed_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Deletes events processed before `before` (a repeat arriving later is then stored and processed again). */
export async function pruneIngressEvents(db: Queryable, before: number): Promise<number> {
  const result = await db.deleteFrom('ingress_events').where('processed_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
