// The operator's message log across accounts (/admin/messages and its CSV): newest first, filtered by account,
// carrier, outcome (the customer log's: failed means failed, blocked or not delivered), a phone's digits and a time
// range; paged by the last row's (created_at, id). Indexes (migrations 0024, 0060): by time with the phone, by
// carrier and time with the phone, by account and time with the phone, and partial ones by time holding only
// the unsuccessful or the pending messages, so a page reads about the rows it shows whatever the store holds.
import { DELIVERY } from '../domain/status.ts';
import { PENDING, UNSUCCESSFUL } from './console-messages.ts';
import type { Queryable } from './engine/db.ts';
import { atMessageKeys, newestMessageKeys } from './message-log-keys.ts';

export interface OperatorMessageFilter {
  accountId?: number;
  carrier?: string;
  status?: 'delivered' | 'failed' | 'pending';
  phoneDigits?: string;
  fromMs?: number;
  toMs?: number;
}

export interface OperatorMessageRow {
  id: number;
  created_at: number;
  username: string;
  phone: string;
  source: string;
  carrier: string | null;
  state: string;
  status: number | null;
  text: string;
}

type Cursor = { createdAt: number; id: number };

// Bare column names: the partial indexes' predicates name them so.
function conditions(f: OperatorMessageFilter, cursor: Cursor | undefined) {
  return (eb: any) => {
    const all = [];
    if (f.accountId !== undefined) all.push(eb('account_id', '=', f.accountId));
    if (f.carrier) all.push(eb('carrier', '=', f.carrier));
    if (f.status === 'delivered') all.push(eb('status', '=', DELIVERY.DELIVERED));
    if (f.status === 'failed') all.push(UNSUCCESSFUL);
    if (f.status === 'pending') all.push(PENDING);
    if (f.phoneDigits) all.push(eb('phone', 'like', `%${f.phoneDigits}%`));
    if (f.fromMs !== undefined) all.push(eb('created_at', '>=', f.fromMs));
    if (f.toMs !== undefined) all.push(eb('created_at', '<', f.toMs));
    if (cursor) all.push(eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(cursor.createdAt, cursor.id)));
    return eb.and(all);
  };
}

/** A page of messages across accounts, newest first, after the cursor (created_at, id) when given. */
export async function operatorMessagePage(
  db: Queryable,
  f: OperatorMessageFilter,
  cursor: Cursor | undefined,
  limit: number,
): Promise<OperatorMessageRow[]> {
  // Part of a number (with no outcome): the matches are found in an index holding the phone alone, then only those
  // rows are read.
  const keys =
    f.phoneDigits && f.status === undefined ? await newestMessageKeys(db, conditions(f, cursor), limit) : undefined;
  if (keys?.length === 0) return [];
  const rows = await db
    .selectFrom('messages')
    .select(['id', 'created_at', 'account_id', 'phone', 'source', 'carrier', 'state', 'status', 'text'])
    .where(keys ? (eb) => atMessageKeys(eb, keys) : conditions(f, cursor))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  const accountIds = [...new Set(rows.map((r) => Number(r.account_id)))];
  const usernames = new Map(
    accountIds.length === 0
      ? []
      : (await db.selectFrom('accounts').select(['id', 'username']).where('id', 'in', accountIds).execute()).map(
          (a) => [Number(a.id), a.username],
        ),
  );
  return rows.map((r) => ({
    id: Number(r.id),
    created_at: Number(r.created_at),
    username: usernames.get(Number(r.account_id)) ?? '',
    phone: r.phone,
    source: r.source ?? '',
    carrier: r.carrier,
    state: r.state,
    status: r.status === null ? null : Number(r.status),
    text: String(r.text ?? ''),
  }));
}
