// The SMPP server's outbox: receipts of messages submitted over SMPP and inbound texts of accounts with SMPP
// credentials, written in the transaction that records them, kept until a bind of the account on any node has
// sent them and had its deliver_sm_resp (or until the receipt window ends). The store is the hand-off between
// nodes: a node claims a row by moving its next attempt past the time it waits for the answer, so a row whose
// node died goes out again from another.
import { DELIVERY, type DeliveryStatus } from '../domain/status.ts';
import type { Queryable } from './engine/db.ts';
import { dialectOf } from './engine/dialect.ts';

/** What one deliver_sm says: a delivery receipt or an inbound text (MO). */
export type SmppOutboxPayload =
  | {
      kind: 'receipt';
      /** The id submit_sm_resp gave (the campaign). */
      messageId: string;
      status: DeliveryStatus;
      /** The recipient the message went to, and the sender it came from. */
      handset: string;
      source: string;
      submittedAt: number;
      doneAt: number;
      textHead: string;
    }
  | { kind: 'mo'; from: string; to: string; text: string; receivedAt: number };

/** A claimed row of the outbox. */
export interface SmppOutboxRow {
  id: number;
  accountId: number;
  payload: SmppOutboxPayload;
  createdAt: number;
  attempts: number;
}

/** A submit that came over SMPP, written in the transaction that accepted it. */
export interface NewSmppSubmit {
  campaignId: number;
  accountId: number;
  registeredDelivery: number;
  source: string;
  textHead: string;
  submittedAt: number;
  validityUntil: number | null;
}

export async function recordSmppSubmit(db: Queryable, s: NewSmppSubmit): Promise<void> {
  await db
    .insertInto('smpp_submits')
    .values({
      campaign_id: s.campaignId,
      account_id: s.accountId,
      registered_delivery: s.registeredDelivery,
      source: s.source,
      text_head: s.textHead,
      submitted_at: s.submittedAt,
      validity_until: s.validityUntil,
    })
    .execute();
}

/** A status change of a message, as the receipts' writers record it. */
interface MessageStatusChange {
  messageId: number;
  accountId: number;
  campaignId: number;
  phone: string;
  status: DeliveryStatus;
  at: number;
}

/**
 * Queues a receipt for each final status change of a message submitted over SMPP whose registered_delivery asks
 * for one (bit 0: every final outcome; bit 1: failures only). Intermediate statuses queue nothing; the same
 * status of the same message is queued once.
 */
export async function queueSmppReceipts(db: Queryable, changes: MessageStatusChange[], now: number): Promise<void> {
  const finals = changes.filter((c) => c.status !== DELIVERY.SUBMITTED);
  if (finals.length === 0) return;
  const campaigns = [...new Set(finals.map((c) => c.campaignId))];
  const submits = new Map<number, { registered: number; source: string; textHead: string; submittedAt: number }>();
  for (let i = 0; i < campaigns.length; i += 500) {
    const rows = await db
      .selectFrom('smpp_submits')
      .select(['campaign_id', 'registered_delivery', 'source', 'text_head', 'submitted_at'])
      .where('campaign_id', 'in', campaigns.slice(i, i + 500))
      .execute();
    for (const r of rows)
      submits.set(Number(r.campaign_id), {
        registered: Number(r.registered_delivery),
        source: r.source,
        textHead: r.text_head,
        submittedAt: Number(r.submitted_at),
      });
  }
  if (submits.size === 0) return;
  const rows = [];
  for (const c of finals) {
    const s = submits.get(c.campaignId);
    if (!s) continue;
    const wants = s.registered & 0x03;
    const delivered = c.status === DELIVERY.DELIVERED || c.status === DELIVERY.DELIVERED_LEGACY;
    if (wants === 0 || wants === 3 || (wants === 2 && delivered)) continue;
    const payload: SmppOutboxPayload = {
      kind: 'receipt',
      messageId: String(c.campaignId),
      status: c.status,
      handset: c.phone,
      source: s.source,
      submittedAt: s.submittedAt,
      doneAt: c.at,
      textHead: s.textHead,
    };
    rows.push({
      account_id: c.accountId,
      kind: 'receipt',
      event_key: `${c.messageId}:${c.status}`,
      payload: JSON.stringify(payload),
      created_at: now,
      next_attempt_at: now,
    });
  }
  for (let i = 0; i < rows.length; i += 200)
    await db
      .insertInto('smpp_outbox')
      .values(rows.slice(i, i + 200))
      .onConflict((oc) => oc.columns(['kind', 'event_key']).doNothing())
      .execute();
}

/** Queues an inbound text for the account's SMPP binds when the account has SMPP credentials. */
export async function queueSmppInbound(
  db: Queryable,
  m: { inboundId: number; accountId: number; phone: string; dest: string; text: string; receivedAt: number },
): Promise<void> {
  const smpp = await db
    .selectFrom('smpp_accounts')
    .select('account_id')
    .where('account_id', '=', m.accountId)
    .executeTakeFirst();
  if (!smpp) return;
  const payload: SmppOutboxPayload = { kind: 'mo', from: m.phone, to: m.dest, text: m.text, receivedAt: m.receivedAt };
  await db
    .insertInto('smpp_outbox')
    .values({
      account_id: m.accountId,
      kind: 'mo',
      event_key: String(m.inboundId),
      payload: JSON.stringify(payload),
      created_at: m.receivedAt,
      next_attempt_at: m.receivedAt,
    })
    .onConflict((oc) => oc.columns(['kind', 'event_key']).doNothing())
    .execute();
}

/**
 * Claims up to `limit` due rows of the given accounts, oldest first: each is moved to `resendAt` (sent again
 * then unless acknowledged before) and its attempts counted. Rows another node claims at the same time are
 * skipped on PostgreSQL.
 */
export async function claimSmppOutbox(
  db: Queryable,
  accountIds: number[],
  limit: number,
  now: number,
  resendAt: number,
): Promise<SmppOutboxRow[]> {
  if (accountIds.length === 0 || limit <= 0) return [];
  let pick = db
    .selectFrom('smpp_outbox')
    .select('id')
    .where('account_id', 'in', accountIds)
    .where('next_attempt_at', '<=', now)
    .orderBy('id')
    .limit(limit);
  if (dialectOf(db) === 'postgres') pick = pick.forUpdate().skipLocked();
  const rows = await db
    .updateTable('smpp_outbox')
    .set((eb) => ({ next_attempt_at: resendAt, attempts: eb('attempts', '+', 1) }))
    .where('id', 'in', pick)
    .returning(['id', 'account_id', 'payload', 'created_at', 'attempts'])
    .execute();
  return rows
    .map((r) => ({
      id: Number(r.id),
      accountId: Number(r.account_id),
      payload: JSON.parse(r.payload) as SmppOutboxPayload,
      createdAt: Number(r.created_at),
      attempts: Number(r.attempts),
    }))
    .sort((a, b) => a.id - b.id);
}

/** Rows whose deliver_sm was answered: gone from the outbox. */
export async function ackSmppOutbox(db: Queryable, ids: number[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 500)
    await db
      .deleteFrom('smpp_outbox')
      .where('id', 'in', ids.slice(i, i + 500))
      .execute();
}

/** Rows refused or not answered: due again at `at`. */
export async function retrySmppOutbox(db: Queryable, ids: number[], at: number): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('smpp_outbox').set({ next_attempt_at: at }).where('id', 'in', ids).execute();
}

/** Drops rows older than `before` (past the receipt window): returns how many. */
export async function dropOldSmppOutbox(db: Queryable, before: number): Promise<number> {
  const r = await db.deleteFrom('smpp_outbox').where('created_at', '<', before).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Whether a campaign came over SMPP (of this account), and when. */
export async function findSmppSubmit(
  db: Queryable,
  campaignId: number,
  accountId: number,
): Promise<{ submittedAt: number; source: string } | undefined> {
  const r = await db
    .selectFrom('smpp_submits')
    .select(['submitted_at', 'source'])
    .where('campaign_id', '=', campaignId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return r ? { submittedAt: Number(r.submitted_at), source: r.source } : undefined;
}

/** Where a message submitted over SMPP stands (query_sm): its first message's state and status, if it is the account's. */
export async function findSmppMessageState(
  db: Queryable,
  campaignId: number,
  accountId: number,
): Promise<{ state: string; status: DeliveryStatus | null; statusAt: number | null } | undefined> {
  if (!Number.isSafeInteger(campaignId) || campaignId <= 0) return undefined;
  const submit = await findSmppSubmit(db, campaignId, accountId);
  if (!submit) return undefined;
  const row = await db
    .selectFrom('messages')
    .select(['state', 'status', 'status_at'])
    .where('campaign_id', '=', campaignId)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  if (!row) return { state: 'cancelled', status: null, statusAt: null };
  return {
    state: row.state,
    status: row.status === null ? null : (Number(row.status) as DeliveryStatus),
    statusAt: row.status_at === null ? null : Number(row.status_at),
  };
}

/** deliver_sm waiting in the outbox, per account (of the given accounts; all when none are given). */
export async function countSmppOutboxWaiting(db: Queryable, accountIds?: number[]): Promise<Map<number, number>> {
  if (accountIds !== undefined && accountIds.length === 0) return new Map();
  let q = db
    .selectFrom('smpp_outbox')
    .select(['account_id', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('account_id');
  if (accountIds !== undefined) q = q.where('account_id', 'in', accountIds);
  const rows = await q.execute();
  return new Map(rows.map((r) => [Number(r.account_id), Number(r.n)]));
}
