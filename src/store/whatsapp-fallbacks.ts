// SMS fallbacks of WhatsApp messages: written with the WhatsApp message in the send's transaction, claimed by the
// fallback worker under a lease when due (the WhatsApp message failed, or its wait ran out undelivered), and
// settled once: sent (the SMS it wrote; a WhatsApp message still queued is withdrawn in the same transaction,
// store/message-withdrawals.ts) or cancelled (WhatsApp delivered first).
import { sql } from 'kysely';
import type { DeliveryStatus } from '../domain/status.ts';
import type { Queryable } from './engine/db.ts';

export interface NewFallback {
  messageId: number;
  accountId: number;
  source: string;
  text: string;
  sealed: string | null;
  dueAt: number;
  now: number;
}

/** Records the fallbacks of a send's WhatsApp messages. */
export async function insertFallbacks(db: Queryable, rows: readonly NewFallback[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('whatsapp_fallbacks')
    .values(
      rows.map((r) => ({
        message_id: r.messageId,
        account_id: r.accountId,
        source: r.source,
        text: r.text,
        sealed: r.sealed,
        due_at: r.dueAt,
        lease_until: 0,
        state: 'pending' as const,
        sms_message_id: null,
        created_at: r.now,
        settled_at: null,
      })),
    )
    .execute();
}

/** A pending fallback whose WhatsApp message's fate is known (or whose wait ran out). */
export interface DueFallback {
  messageId: number;
  accountId: number;
  source: string;
  text: string;
  sealed: string | null;
  phone: string;
  campaignId: number;
  externalId: string | null;
  /** The WhatsApp message reached the phone (delivered or read): the fallback is cancelled. */
  reached: boolean;
  /** The WhatsApp message never went (blocked at dispatch, cancelled): nor does its fallback. */
  notSent: boolean;
  /** The WhatsApp message's lane (1: the priority lane, as one-time codes): its SMS takes the same. */
  priority: number;
  /** The send asked for the SMS at once (`after_seconds` 0): both go, the WhatsApp message is never withdrawn. */
  immediate: boolean;
}

/**
 * Claims up to `limit` pending fallbacks that are due: their WhatsApp message reached the phone (`reached`
 * statuses), failed (a final state or status that is not `reached`), or is past its `due_at`. Each is leased for
 * `leaseMs`, so one node works on it at a time; a crash lets the lease run out and another node take it.
 */
export async function claimDueFallbacks(
  db: Queryable,
  o: { now: number; leaseMs: number; limit: number; reached: readonly DeliveryStatus[] },
): Promise<DueFallback[]> {
  const candidates = await db
    .selectFrom('whatsapp_fallbacks as f')
    .innerJoin('messages as m', 'm.id', 'f.message_id')
    .select([
      'f.message_id',
      'f.account_id',
      'f.source',
      'f.text',
      'f.sealed',
      'f.due_at',
      'f.created_at',
      'm.phone',
      'm.campaign_id',
      'm.external_id',
      'm.state',
      'm.status',
      'm.priority',
    ])
    .where('f.state', '=', 'pending')
    .where('f.lease_until', '<', o.now)
    .where((eb) =>
      eb.or([
        eb('f.due_at', '<=', o.now),
        eb('m.state', 'in', ['failed', 'skipped', 'cancelled']),
        eb.and([eb('m.state', '=', 'done'), eb('m.status', 'is not', null)]),
        eb('m.status', 'in', [...o.reached]),
      ]),
    )
    .orderBy('f.due_at')
    .limit(o.limit)
    .execute();
  const claimed: DueFallback[] = [];
  for (const c of candidates) {
    const taken = await db
      .updateTable('whatsapp_fallbacks')
      .set({ lease_until: o.now + o.leaseMs })
      .where('message_id', '=', c.message_id)
      .where('state', '=', 'pending')
      .where('lease_until', '<', o.now)
      .executeTakeFirst();
    if (Number(taken.numUpdatedRows) === 0) continue;
    const status = c.status as DeliveryStatus | null;
    claimed.push({
      messageId: Number(c.message_id),
      accountId: Number(c.account_id),
      source: c.source,
      text: c.text,
      sealed: c.sealed,
      phone: c.phone,
      campaignId: Number(c.campaign_id),
      externalId: c.external_id,
      reached: status !== null && o.reached.includes(status),
      notSent: c.state === 'skipped' || c.state === 'cancelled',
      priority: Number(c.priority ?? 0),
      immediate: Number(c.due_at) <= Number(c.created_at),
    });
  }
  return claimed;
}

/** Settles a claimed fallback: sent with the SMS message it wrote, or cancelled. False when it was settled already. */
export async function settleFallback(
  db: Queryable,
  messageId: number,
  outcome: { state: 'sent'; smsMessageId: number } | { state: 'cancelled' },
  now: number,
): Promise<boolean> {
  const r = await db
    .updateTable('whatsapp_fallbacks')
    .set({
      state: outcome.state,
      sms_message_id: outcome.state === 'sent' ? outcome.smsMessageId : null,
      settled_at: now,
    })
    .where('message_id', '=', messageId)
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** The fallback of a WhatsApp message, as it stands (for reports and tests). */
export async function fallbackOf(
  db: Queryable,
  messageId: number,
): Promise<{ state: string; smsMessageId: number | null; dueAt: number } | undefined> {
  const row = await db
    .selectFrom('whatsapp_fallbacks')
    .select(['state', 'sms_message_id', 'due_at'])
    .where('message_id', '=', messageId)
    .executeTakeFirst();
  return row
    ? {
        state: row.state,
        smsMessageId: row.sms_message_id === null ? null : Number(row.sms_message_id),
        dueAt: Number(row.due_at),
      }
    : undefined;
}

/** Pending fallbacks (for health and tests). */
export async function pendingFallbackCount(db: Queryable): Promise<number> {
  const row = await db
    .selectFrom('whatsapp_fallbacks')
    .select(sql<number>`count(*)`.as('n'))
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
