// The read model of the console's page of one message: the message itself (only when it is the account's), its
// submitted parts with the carrier's ids and the status each part's receipt gave, and the `dlr` push events
// recorded for it (each status change the account was told of) with every attempt to deliver them. Every query
// names the account.
import type { Queryable } from './engine/db.ts';
import type { LogRow } from './console-messages.ts';

export interface MessageDetail extends LogRow {
  submitted_at: number | null;
  attempts: number;
  scheduled_at: number | null;
}

export interface SubmittedPart {
  carrier: string;
  carrier_message_id: string;
  part_index: number;
  /** The status this part's receipt gave (null: no receipt yet). */
  part_status: number | null;
  /** When the carrier took the part. */
  created_at: number;
}

export interface PushAttemptRow {
  at: number;
  http_status: number | null;
  latency_ms: number;
  error: string | null;
}

export interface MessagePush {
  id: number;
  /** The status the push reports, and its time as the push says it (the account's zone, dd/mm/yyyy hh:mm:ss). */
  status: number;
  date: string;
  state: string;
  created_at: number;
  delivered_at: number | null;
  attempts: PushAttemptRow[];
}

export interface MessageHistory {
  message: MessageDetail;
  parts: SubmittedPart[];
  pushes: MessagePush[];
}

/** One message of the account with its parts and pushes; undefined when there is none with this id for it. */
export async function messageHistory(
  db: Queryable,
  accountId: number,
  messageId: number,
): Promise<MessageHistory | undefined> {
  const m = await db
    .selectFrom('messages')
    .innerJoin('campaigns', 'campaigns.id', 'messages.campaign_id')
    .select([
      'messages.id',
      'messages.created_at',
      'messages.phone',
      'messages.source',
      'messages.channel',
      'messages.priority',
      'messages.campaign_id',
      'campaigns.name as campaign_name',
      'campaigns.scheduled_at',
      'messages.external_id',
      'messages.text',
      'messages.parts',
      'messages.cost_credits',
      'messages.cost_agorot',
      'messages.state',
      'messages.status',
      'messages.status_at',
      'messages.error',
      'messages.carrier',
      'messages.submitted_at',
      'messages.attempts',
    ])
    .where('messages.id', '=', messageId)
    .where('messages.account_id', '=', accountId)
    .executeTakeFirst();
  if (!m) return undefined;
  const orNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  const message: MessageDetail = {
    ...m,
    id: Number(m.id),
    created_at: Number(m.created_at),
    priority: Number(m.priority),
    campaign_id: Number(m.campaign_id),
    parts: Number(m.parts),
    cost_credits: Number(m.cost_credits),
    cost_agorot: Number(m.cost_agorot),
    status: orNull(m.status),
    status_at: orNull(m.status_at),
    submitted_at: orNull(m.submitted_at),
    scheduled_at: orNull(m.scheduled_at),
    attempts: Number(m.attempts),
  };
  const parts = (
    await db
      .selectFrom('carrier_message_ids')
      .select(['carrier', 'carrier_message_id', 'part_index', 'part_status', 'created_at'])
      .where('message_id', '=', messageId)
      .orderBy('part_index')
      .orderBy('created_at')
      .execute()
  ).map((p) => ({
    ...p,
    part_index: Number(p.part_index),
    part_status: orNull(p.part_status),
    created_at: Number(p.created_at),
  }));
  return { message, parts, pushes: await messagePushes(db, accountId, messageId) };
}

async function messagePushes(db: Queryable, accountId: number, messageId: number): Promise<MessagePush[]> {
  const registrations = (
    await db
      .selectFrom('push_registrations')
      .select('id')
      .where('account_id', '=', accountId)
      .where('type', '=', 'dlr')
      .execute()
  ).map((r) => Number(r.id));
  if (registrations.length === 0) return [];
  const events = await db
    .selectFrom('push_events')
    .select(['id', 'payload', 'state', 'created_at', 'delivered_at'])
    .where('registration_id', 'in', registrations)
    .where('order_key', '=', String(messageId))
    .where('account_id', '=', accountId)
    .where('type', '=', 'dlr')
    .orderBy('id')
    .limit(100)
    .execute();
  if (events.length === 0) return [];
  const attempts = await db
    .selectFrom('push_attempts')
    .select(['event_id', 'at', 'http_status', 'latency_ms', 'error'])
    .where(
      'event_id',
      'in',
      events.map((e) => e.id),
    )
    .orderBy('id')
    .execute();
  return events.map((e) => {
    const fields = JSON.parse(e.payload) as Record<string, string>;
    return {
      id: Number(e.id),
      status: Number(fields.status),
      date: fields.date ?? '',
      state: e.state,
      created_at: Number(e.created_at),
      delivered_at: e.delivered_at === null ? null : Number(e.delivered_at),
      attempts: attempts
        .filter((a) => Number(a.event_id) === Number(e.id))
        .map((a) => ({
          at: Number(a.at),
          http_status: a.http_status === null ? null : Number(a.http_status),
          latency_ms: Number(a.latency_ms),
          error: a.error,
        })),
    };
  });
}
