// The console's WhatsApp conversations: an account's threads (one per business number and user: the user's inbound
// messages and the account's WhatsApp messages to them) and one thread's messages in time order. Every query names
// the account, so a thread of another account reads as empty.
import type { Queryable } from './engine/db.ts';
import { WINDOW_MS } from './whatsapp.ts';

/** A conversation between a business number and a user, as the replies page lists it. */
export interface WhatsappThread {
  business: string;
  user: string;
  /** The newest message either way. */
  lastAt: number;
  /** The user's newest message (undefined: they never wrote). */
  lastInboundAt?: number;
  /** When the user's 24-hour window closes (undefined: they never wrote). */
  windowClosesAt?: number;
}

/** One message of a thread: the user's (`in`) or the account's (`out`, with its delivery state). */
export type ThreadMessage =
  | { direction: 'in'; id: number; at: number; text: string }
  | {
      direction: 'out';
      id: number;
      at: number;
      text: string;
      priority: number;
      state: string;
      status: number | null;
      statusAt: number | null;
      error: string | null;
    };

const key = (business: string, user: string) => `${business}\u0000${user}`;

/** The account's WhatsApp threads, newest first (at most `limit`). */
export async function whatsappThreads(db: Queryable, accountId: number, limit: number): Promise<WhatsappThread[]> {
  const inbound = await db
    .selectFrom('inbound_messages')
    .select((eb) => ['dest', 'phone', eb.fn.max('received_at').as('last_at')])
    .where('account_id', '=', accountId)
    .where('channel', '=', 'whatsapp')
    .groupBy(['dest', 'phone'])
    .execute();
  const outbound = await db
    .selectFrom('messages')
    .select((eb) => ['source', 'phone', eb.fn.max('created_at').as('last_at')])
    .where('account_id', '=', accountId)
    .where('channel', '=', 'whatsapp')
    .groupBy(['source', 'phone'])
    .execute();
  const threads = new Map<string, WhatsappThread>();
  for (const r of inbound) {
    const at = Number(r.last_at);
    threads.set(key(r.dest, r.phone), { business: r.dest, user: r.phone, lastAt: at, lastInboundAt: at });
  }
  for (const r of outbound) {
    const at = Number(r.last_at);
    const known = threads.get(key(r.source, r.phone));
    if (known) known.lastAt = Math.max(known.lastAt, at);
    else threads.set(key(r.source, r.phone), { business: r.source, user: r.phone, lastAt: at });
  }
  const windows = await db
    .selectFrom('whatsapp_windows')
    .select(['business_number', 'user_id', 'last_inbound_at'])
    .where('account_id', '=', accountId)
    .execute();
  for (const w of windows) {
    const thread = threads.get(key(w.business_number, w.user_id));
    if (thread) thread.windowClosesAt = Number(w.last_inbound_at) + WINDOW_MS;
  }
  return [...threads.values()].sort((a, b) => b.lastAt - a.lastAt).slice(0, limit);
}

/** The newest `limit` messages of one thread of the account, oldest first. */
export async function whatsappThreadMessages(
  db: Queryable,
  accountId: number,
  thread: { business: string; user: string },
  limit: number,
): Promise<ThreadMessage[]> {
  const inbound = await db
    .selectFrom('inbound_messages')
    .select(['id', 'text', 'received_at'])
    .where('account_id', '=', accountId)
    .where('channel', '=', 'whatsapp')
    .where('dest', '=', thread.business)
    .where('phone', '=', thread.user)
    .orderBy('received_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  const outbound = await db
    .selectFrom('messages')
    .select(['id', 'text', 'created_at', 'priority', 'state', 'status', 'status_at', 'error'])
    .where('account_id', '=', accountId)
    .where('channel', '=', 'whatsapp')
    .where('source', '=', thread.business)
    .where('phone', '=', thread.user)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  const all: ThreadMessage[] = [
    ...inbound.map((r) => ({ direction: 'in' as const, id: Number(r.id), at: Number(r.received_at), text: r.text })),
    ...outbound.map((r) => ({
      direction: 'out' as const,
      id: Number(r.id),
      at: Number(r.created_at),
      text: r.text,
      priority: Number(r.priority),
      state: r.state,
      status: r.status === null ? null : Number(r.status),
      statusAt: r.status_at === null ? null : Number(r.status_at),
      error: r.error,
    })),
  ];
  // Time order; at the same instant the user's message first (a reply never precedes what it answers).
  all.sort((a, b) => a.at - b.at || (a.direction === b.direction ? a.id - b.id : a.direction === 'in' ? -1 : 1));
  return all.slice(-limit);
}
