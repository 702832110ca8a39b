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

/** Where a page of threads ends: its last thread (threads sort by their last message, newest first, then by number and user). */
export interface ThreadsCursor {
  lastAt: number;
  business: string;
  user: string;
}

/** Newest first, then by business number and user: the order the pages of threads follow. */
const threadOrder = (a: ThreadsCursor, b: ThreadsCursor) =>
  b.lastAt - a.lastAt ||
  (a.business < b.business ? -1 : a.business > b.business ? 1 : a.user < b.user ? -1 : a.user > b.user ? 1 : 0);

/** The account's WhatsApp threads, newest first: at most `limit` (those after `after` when given), and whether more remain. */
export async function whatsappThreads(
  db: Queryable,
  accountId: number,
  limit: number,
  after?: ThreadsCursor,
): Promise<{ threads: WhatsappThread[]; hasMore: boolean }> {
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
  const sorted = [...threads.values()].filter((t) => !after || threadOrder(after, t) < 0).sort(threadOrder);
  return { threads: sorted.slice(0, limit), hasMore: sorted.length > limit };
}

/**
 * Where a page of a thread ends: its oldest message. Messages sort by time, then the user's before the account's at
 * the same instant (a reply never precedes what it answers), then by id; the next page holds what sorts before.
 */
export interface ThreadCursor {
  at: number;
  direction: 'in' | 'out';
  id: number;
}

/** A page of a thread: its messages oldest first, and whether older ones remain. */
export interface ThreadPage {
  messages: ThreadMessage[];
  hasOlder: boolean;
}

/** The newest `limit` messages of one thread of the account (those before `before` when given), oldest first. */
export async function whatsappThreadMessages(
  db: Queryable,
  accountId: number,
  thread: { business: string; user: string },
  limit: number,
  before?: ThreadCursor,
): Promise<ThreadPage> {
  // Each side's newest limit + 1 before the cursor: the page's messages are among them, and one more says that
  // older ones remain.
  const inbound = await db
    .selectFrom('inbound_messages')
    .select(['id', 'text', 'received_at'])
    .where('account_id', '=', accountId)
    .where('channel', '=', 'whatsapp')
    .where('dest', '=', thread.business)
    .where('phone', '=', thread.user)
    .$if(before !== undefined, (q) =>
      q.where((eb) =>
        eb.or([
          eb('received_at', '<', before!.at),
          before!.direction === 'out'
            ? eb('received_at', '=', before!.at)
            : eb.and([eb('received_at', '=', before!.at), eb('id', '<', before!.id)]),
        ]),
      ),
    )
    .orderBy('received_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
  const outbound = await db
    .selectFrom('messages')
    .select(['id', 'text', 'created_at', 'priority', 'state', 'status', 'status_at', 'error'])
    .where('account_id', '=', accountId)
    .where('channel', '=', 'whatsapp')
    .where('source', '=', thread.business)
    .where('phone', '=', thread.user)
    .$if(before !== undefined, (q) =>
      q.where((eb) =>
        before!.direction === 'in'
          ? eb('created_at', '<', before!.at)
          : eb.or([
              eb('created_at', '<', before!.at),
              eb.and([eb('created_at', '=', before!.at), eb('id', '<', before!.id)]),
            ]),
      ),
    )
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
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
  all.sort((a, b) => a.at - b.at || (a.direction === b.direction ? a.id - b.id : a.direction === 'in' ? -1 : 1));
  return { messages: all.slice(-limit), hasOlder: all.length > limit };
}
