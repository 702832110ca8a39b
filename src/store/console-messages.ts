// The console's message log: an account's messages across all its sends, filtered (outcome or numeric status,
// part of the phone, a time range, a campaign, a channel), newest first, a page at a time by keyset
// (created_at, id), or every match in batches for a streamed export. Every query names the account.
// Indexes (migration 0024): (account_id, created_at, id) for the log itself and its time ranges,
// (campaign_id, created_at, id) for one campaign, and a partial (account_id, created_at, id) holding only the
// unsuccessful messages (failed or blocked), so a "failed" page of a big store reads only failures.
import { sql, type SqlBool, type Expression } from 'kysely';
import { DELIVERY } from '../domain/status.ts';
import type { Queryable } from './engine/db.ts';
import { atMessageKeys, newestMessageKeys } from './message-log-keys.ts';

const { DELIVERED } = DELIVERY;
/** The statuses of a message that reached the phone: an SMS's delivered, WhatsApp's delivered and read. */
export const REACHED_STATUSES: readonly number[] = [DELIVERED, DELIVERY.WHATSAPP_DELIVERED, DELIVERY.WHATSAPP_READ];
const PENDING_STATES = ['scheduled', 'queued', 'submitting', 'submitted'] as const;

/**
 * The predicate of the partial index `messages_account_unsuccessful` (migration 0024), written exactly as the
 * index has it (102 is `DELIVERY.DELIVERED`): the embedded store uses a partial index only for a query holding the
 * same term.
 */
export const UNSUCCESSFUL = sql<SqlBool>`(state in ('failed', 'skipped') or (state = 'done' and status <> 102))`;

/** Still on its way (scheduled, queued, with a carrier, waiting for its receipt), as migration 0060's index has it. */
export const PENDING = sql<SqlBool>`state in ('scheduled', 'queued', 'submitting', 'submitted')`;

export type OutcomeFilter = 'delivered' | 'failed' | 'pending' | 'blocked';
export type ChannelFilter = 'sms' | 'call' | 'whatsapp' | 'otp';

export interface MessageFilter {
  /** An outcome, or one numeric delivery status. */
  status?: OutcomeFilter | number;
  /** Digits found anywhere in the number (international form). */
  phoneDigits?: string;
  /** A whole number in international form: looked up by index. */
  phoneExact?: string;
  /** Accepted at or after `fromMs`, before `toMs`. */
  fromMs?: number;
  toMs?: number;
  campaignId?: number;
  channel?: ChannelFilter;
}

/** Position after which the next (older) page starts. */
export interface LogCursor {
  createdAt: number;
  id: number;
}

export interface LogRow {
  id: number;
  created_at: number;
  phone: string;
  source: string;
  channel: string;
  priority: number;
  campaign_id: number;
  campaign_name: string | null;
  external_id: string | null;
  text: string;
  parts: number;
  cost_credits: number;
  cost_agorot: number;
  state: string;
  status: number | null;
  status_at: number | null;
  error: string | null;
  /** The carrier that took it (or last refused it); null before any carrier did. */
  carrier: string | null;
}

/** Where a page starts: at the cursor's instant below its id, or wholly before an instant. */
type Start = { at: number; belowId: number } | { before: number } | undefined;

function conditions(accountId: number, f: MessageFilter, start: Start) {
  return (eb: any): Expression<SqlBool> => {
    const all: Expression<SqlBool>[] = [eb('account_id', '=', accountId)];
    if (f.campaignId !== undefined) all.push(eb('campaign_id', '=', f.campaignId));
    if (f.phoneExact !== undefined) all.push(eb('phone', '=', f.phoneExact));
    else if (f.phoneDigits) all.push(eb('phone', 'like', `%${f.phoneDigits}%`));
    if (f.fromMs !== undefined) all.push(eb('created_at', '>=', f.fromMs));
    if (f.toMs !== undefined) all.push(eb('created_at', '<', f.toMs));
    if (f.channel === 'otp') all.push(eb('priority', '=', 1));
    else if (f.channel) all.push(eb.and([eb('channel', '=', f.channel), eb('priority', '=', 0)]));
    if (typeof f.status === 'number') all.push(eb('status', '=', f.status));
    else if (f.status === 'delivered')
      all.push(eb.and([eb('state', '=', 'done'), eb('status', 'in', REACHED_STATUSES)]));
    // A WhatsApp message delivered or read is outside the partial index's "unsuccessful", which predates WhatsApp.
    else if (f.status === 'failed')
      all.push(
        UNSUCCESSFUL,
        eb('state', '<>', 'skipped'),
        eb.or([eb('status', 'is', null), eb('status', 'not in', REACHED_STATUSES)]),
      );
    else if (f.status === 'blocked') all.push(UNSUCCESSFUL, eb('state', '=', 'skipped'));
    else if (f.status === 'pending') all.push(eb('state', 'in', PENDING_STATES));
    if (start && 'at' in start) all.push(eb('created_at', '=', start.at), eb('id', '<', start.belowId));
    else if (start) all.push(eb('created_at', '<', start.before));
    return eb.and(all);
  };
}

/**
 * One page of the log, newest first, older than `cursor` when given. A page after a cursor is read as the rest of
 * the cursor's instant, then what came before it: two index ranges, where a single (created_at, id) comparison
 * would walk again every message of that instant (a campaign's messages share their acceptance time).
 */
export async function messageLogPage(
  db: Queryable,
  accountId: number,
  filter: MessageFilter,
  cursor: LogCursor | undefined,
  limit: number,
): Promise<LogRow[]> {
  if (!cursor) return readPage(db, accountId, filter, undefined, limit);
  const same = await readPage(db, accountId, filter, { at: cursor.createdAt, belowId: cursor.id }, limit);
  if (same.length === limit) return same;
  return [...same, ...(await readPage(db, accountId, filter, { before: cursor.createdAt }, limit - same.length))];
}

async function readPage(
  db: Queryable,
  accountId: number,
  filter: MessageFilter,
  start: Start,
  limit: number,
): Promise<LogRow[]> {
  // Part of a number, and nothing else but dates: the matches are found in the index on (account_id, created_at,
  // id, phone) alone (an index-only scan on PostgreSQL), then only those rows are read.
  const indexOnly =
    filter.phoneDigits !== undefined &&
    filter.status === undefined &&
    filter.channel === undefined &&
    filter.campaignId === undefined;
  const keys = indexOnly ? await newestMessageKeys(db, conditions(accountId, filter, start), limit) : undefined;
  if (keys?.length === 0) return [];
  // No join (campaign names come in a second query): the partial index's predicate names bare columns.
  const rows = await db
    .selectFrom('messages')
    .select([
      'id',
      'created_at',
      'phone',
      'source',
      'channel',
      'priority',
      'campaign_id',
      'external_id',
      'text',
      'parts',
      'cost_credits',
      'cost_agorot',
      'state',
      'status',
      'status_at',
      'error',
      'carrier',
    ])
    .where(
      keys
        ? (eb) => eb.and([eb('account_id', '=', accountId), atMessageKeys(eb, keys)])
        : conditions(accountId, filter, start),
    )
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  const ids = [...new Set(rows.map((r) => Number(r.campaign_id)))];
  const names = new Map(
    ids.length === 0
      ? []
      : (
          await db
            .selectFrom('campaigns')
            .select(['id', 'name'])
            .where('account_id', '=', accountId)
            .where('id', 'in', ids)
            .execute()
        ).map((c) => [Number(c.id), c.name]),
  );
  return rows.map((r) => ({
    ...r,
    campaign_name: names.get(Number(r.campaign_id)) ?? null,
    id: Number(r.id),
    created_at: Number(r.created_at),
    priority: Number(r.priority),
    campaign_id: Number(r.campaign_id),
    parts: Number(r.parts),
    cost_credits: Number(r.cost_credits),
    cost_agorot: Number(r.cost_agorot),
    status: r.status === null ? null : Number(r.status),
    status_at: r.status_at === null ? null : Number(r.status_at),
  }));
}

/** Every message matching the filter, newest first, read a batch at a time (constant memory for any count). */
export async function* messageLogAll(
  db: Queryable,
  accountId: number,
  filter: MessageFilter,
  batch = 1000,
): AsyncGenerator<LogRow> {
  let cursor: LogCursor | undefined;
  for (;;) {
    const rows = await messageLogPage(db, accountId, filter, cursor, batch);
    yield* rows;
    if (rows.length < batch) return;
    const last = rows[rows.length - 1];
    cursor = { createdAt: last.created_at, id: last.id };
  }
}
