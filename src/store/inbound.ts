// Inbound SMS: stored per account for `incoming` (or kept aside when no account owns the number), and the
// look-up that tells whether a sender was sent a reply-to-remove campaign (add_unsubscribe 2) by the account.
import { sql } from 'kysely';
import type { Queryable } from './engine/db.ts';
import { dialectOf } from './engine/dialect.ts';
import type { InboundPartTable } from './schema/carriers.ts';
import { queueSmppInbound } from './smpp-outbox.ts';

/** An inbound message routed to an account. */
export interface NewInbound {
  accountId: number;
  /** Sender, international digits. */
  phone: string;
  dest: string;
  text: string;
  carrier: string;
  receivedAt: number;
}

/** Stores an inbound message of an account; returns its id. */
export async function insertInbound(db: Queryable, m: NewInbound): Promise<number> {
  const row = await db
    .insertInto('inbound_messages')
    .values({
      account_id: m.accountId,
      phone: m.phone,
      dest: m.dest,
      text: m.text,
      carrier: m.carrier,
      received_at: m.receivedAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const id = Number(row.id);
  // An account with SMPP credentials gets its inbound texts as deliver_sm too.
  await queueSmppInbound(db, { inboundId: id, ...m });
  return id;
}

/** Keeps an inbound message whose destination no account owns. */
export async function insertUnrouted(db: Queryable, m: Omit<NewInbound, 'accountId'>): Promise<void> {
  await db
    .insertInto('unrouted_inbound')
    .values({ phone: m.phone, dest: m.dest, text: m.text, carrier: m.carrier, received_at: m.receivedAt })
    .execute();
}

/** One part of a concatenated inbound SMS. */
export type NewInboundPart = Omit<InboundPartTable, 'id' | 'received_at'> & { receivedAt: number };

/**
 * Keeps a part (a part the SMSC delivers twice is kept once) and, when its message is now whole, removes the
 * message's parts and returns its text (parts in order) and the time its first part arrived.
 */
export async function addInboundPart(
  db: Queryable,
  part: NewInboundPart,
): Promise<{ text: string; receivedAt: number } | undefined> {
  const dialect = dialectOf(db);
  if (dialect === 'postgres') {
    // Parts of one message arriving at once on two binds: each would miss the other's uncommitted row.
    const key = [part.carrier, part.phone, part.dest, part.ref, part.total].join('|');
    await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(db);
  }
  await db
    .insertInto('inbound_parts')
    .values({
      carrier: part.carrier,
      phone: part.phone,
      dest: part.dest,
      ref: part.ref,
      total: part.total,
      seq: part.seq,
      text: part.text,
      received_at: part.receivedAt,
    })
    .onConflict((oc) => oc.columns(['carrier', 'phone', 'dest', 'ref', 'total', 'seq']).doNothing())
    .execute();
  const group = db
    .selectFrom('inbound_parts')
    .where('carrier', '=', part.carrier)
    .where('phone', '=', part.phone)
    .where('dest', '=', part.dest)
    .where('ref', '=', part.ref)
    .where('total', '=', part.total);
  const parts = await group.select(['id', 'seq', 'text', 'received_at']).orderBy('seq').execute();
  if (parts.length < part.total) return undefined;
  await db
    .deleteFrom('inbound_parts')
    .where(
      'id',
      'in',
      parts.map((p) => p.id),
    )
    .execute();
  return { text: parts.map((p) => p.text).join(''), receivedAt: Math.min(...parts.map((p) => Number(p.received_at))) };
}

/** Drops parts of messages that never completed (received before `before`); returns how many. */
export async function pruneInboundParts(db: Queryable, before: number): Promise<number> {
  const res = await db.deleteFrom('inbound_parts').where('received_at', '<', before).executeTakeFirst();
  return Number(res.numDeletedRows);
}

/** One row of `incoming`. */
export interface InboundRow {
  id: number;
  phone: string;
  dest: string;
  text: string;
  received_at: number;
}

/** The account's inbound messages received within [from, to] (inclusive), oldest first, at most `limit`. */
export async function listInbound(
  db: Queryable,
  accountId: number,
  from: number,
  to: number,
  limit: number,
): Promise<InboundRow[]> {
  const rows = await db
    .selectFrom('inbound_messages')
    .select(['id', 'phone', 'dest', 'text', 'received_at'])
    .where('account_id', '=', accountId)
    .where('received_at', '>=', from)
    .where('received_at', '<=', to)
    .orderBy('received_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ ...r, id: Number(r.id), received_at: Number(r.received_at) }));
}

// Messages that actually went out (or are going out) count; scheduled, cancelled, skipped and failed do not.
const SENT_STATES = ['submitting', 'submitted', 'done'] as const;
const LOOK_BACK = 200;

/** Whether add_unsubscribe in a campaign's stored options asked for reply-to-remove (2). */
export function asksReplyToRemove(options: string): boolean {
  try {
    const value = (JSON.parse(options) as { add_unsubscribe?: unknown }).add_unsubscribe;
    return value === 'reply' || value === 2 || value === '2';
  } catch {
    return false;
  }
}

/** True when the account sent this phone (one of its latest 200 messages to it) a reply-to-remove campaign. */
export async function receivedReplyToRemoveCampaign(db: Queryable, accountId: number, phone: string): Promise<boolean> {
  const rows = await db
    .selectFrom('messages')
    .select('campaign_id')
    .where('account_id', '=', accountId)
    .where('phone', '=', phone)
    .where('state', 'in', [...SENT_STATES])
    .orderBy('created_at', 'desc')
    .limit(LOOK_BACK)
    .execute();
  const campaignIds = [...new Set(rows.map((r) => Number(r.campaign_id)))];
  if (campaignIds.length === 0) return false;
  const campaigns = await db
    .selectFrom('campaigns')
    .select('options')
    .where('id', 'in', campaignIds)
    .where('account_id', '=', accountId)
    .execute();
  return campaigns.some((c) => asksReplyToRemove(c.options));
}
