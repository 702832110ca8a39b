// The store's side of the carriers' queues (docs/carriers.md "Health"): messages waiting for a retry after their
// last try failed on a carrier, per carrier, and the due queue every dispatcher claims from. Read on demand
// (`yona admin carriers --status`) or every few seconds at most (/metrics, /healthz), never per submit.
import type { Queryable } from './engine/db.ts';

/** Messages queued again after a failed try, by the carrier that try was on. */
export interface RetryQueue {
  carrier: string;
  messages: number;
  /** When the oldest of them was accepted (ms since the epoch). */
  oldestAcceptedAt: number;
}

/** Messages queued for another try, by the carrier of their last try (the `carrier` a retry records). */
export async function retryQueueByCarrier(db: Queryable): Promise<RetryQueue[]> {
  const rows = await db
    .selectFrom('messages')
    .select(['carrier', (eb) => eb.fn.countAll<number>().as('n'), (eb) => eb.fn.min('created_at').as('oldest')])
    .where('state', '=', 'queued')
    .where('attempts', '>', 0)
    .where('carrier', 'is not', null)
    .groupBy('carrier')
    .execute();
  return rows.map((r) => ({ carrier: r.carrier as string, messages: Number(r.n), oldestAcceptedAt: Number(r.oldest) }));
}

/** Messages due now (queued, their time come) and since when the one due longest has been due. */
export async function dueQueue(db: Queryable, now: number): Promise<{ messages: number; oldestDueAt?: number }> {
  const row = await db
    .selectFrom('messages')
    .select([(eb) => eb.fn.countAll<number>().as('n'), (eb) => eb.fn.min('next_attempt_at').as('oldest')])
    .where('state', '=', 'queued')
    .where('next_attempt_at', '<=', now)
    .executeTakeFirst();
  const messages = Number(row?.n ?? 0);
  return messages > 0 && row?.oldest != null ? { messages, oldestDueAt: Number(row.oldest) } : { messages };
}
