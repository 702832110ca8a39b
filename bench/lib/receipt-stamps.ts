// For bench/push.ts: notes when each delivery receipt reached Yona (the SMPP connector handing the parsed
// deliver_sm to the receipts worker, before its batching and commit), and maps pushed events back to them.
import type { Kysely } from 'kysely';
import type { ReceiptWorker } from '../../src/delivery/receipts.ts';

export interface ReceiptStamps {
  /** Carrier message id -> Date.now() when its receipt came in. */
  at: Map<string, number>;
  /** Milliseconds from each pushed dlr event's receipt to its first arrival at the receiver, sorted. */
  latencies(db: Kysely<any>, arrivals: [string, number][]): Promise<number[]>;
  /** Receipts per second from the first to the last receipt that came in after `from` receipts had. */
  rateSince(from: number): number;
}

const CHUNK = 1000;

async function inChunks<T>(ids: (string | number)[], read: (part: (string | number)[]) => Promise<T[]>): Promise<T[]> {
  const rows: T[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) rows.push(...(await read(ids.slice(i, i + CHUNK))));
  return rows;
}

/** Wraps the worker's entry point (the connector calls `receipts.add` per receipt) to stamp each arrival first. */
export function stampReceipts(receipts: ReceiptWorker): ReceiptStamps {
  const at = new Map<string, number>();
  const add = receipts.add.bind(receipts);
  receipts.add = (carrier, receipt) => {
    at.set(receipt.carrierMessageId, Date.now());
    return add(carrier, receipt);
  };
  return {
    at,
    async latencies(db, arrivals) {
      // event -> message (a dlr event's order key is its message id) -> carrier message id -> receipt time
      const events = await inChunks(
        arrivals.map(([id]) => Number(id)),
        (part) => db.selectFrom('push_events').select(['id', 'order_key']).where('id', 'in', part).execute(),
      );
      const messageOf = new Map(events.map((e) => [String(e.id), Number(e.order_key)]));
      const parts = await inChunks([...messageOf.values()], (part) =>
        db
          .selectFrom('carrier_message_ids')
          .select(['message_id', 'carrier_message_id'])
          .where('message_id', 'in', part)
          .execute(),
      );
      const cmidOf = new Map(parts.map((p) => [Number(p.message_id), String(p.carrier_message_id)]));
      return arrivals
        .map(([id, arrived]) => {
          const received = at.get(cmidOf.get(messageOf.get(id) ?? -1) ?? '');
          if (received === undefined) throw new Error(`push event ${id}: no receipt noted for its message`);
          return arrived - received;
        })
        .sort((a, b) => a - b);
    },
    rateSince(from) {
      const times = [...at.values()].slice(from);
      let first = Infinity;
      let last = -Infinity;
      for (const t of times) [first, last] = [Math.min(first, t), Math.max(last, t)];
      return Math.round(times.length / (Math.max(1, last - first) / 1000));
    },
  };
}
