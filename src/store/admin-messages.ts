// The operator's message log across accounts (/admin/messages and its CSV): newest first, filtered by account,
// carrier, outcome, a phone's digits and a time range; paged by the last row's (created_at, id).
import type { Queryable } from './engine/db.ts';

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

/** A page of messages across accounts, newest first, after the cursor (created_at, id) when given. */
export async function operatorMessagePage(
  db: Queryable,
  f: OperatorMessageFilter,
  cursor: { createdAt: number; id: number } | undefined,
  limit: number,
): Promise<OperatorMessageRow[]> {
  let q = db
    .selectFrom('messages as m')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .select([
      'm.id',
      'm.created_at',
      'a.username',
      'm.phone',
      'm.source',
      'm.carrier',
      'm.state',
      'm.status',
      'm.text',
    ]);
  if (f.accountId !== undefined) q = q.where('m.account_id', '=', f.accountId);
  if (f.carrier) q = q.where('m.carrier', '=', f.carrier);
  if (f.status === 'delivered') q = q.where('m.status', '=', 102 as never);
  if (f.status === 'failed') q = q.where('m.state', 'in', ['failed', 'skipped']);
  if (f.status === 'pending') q = q.where('m.state', 'in', ['scheduled', 'queued', 'submitting', 'submitted']);
  if (f.phoneDigits) q = q.where('m.phone', 'like', `%${f.phoneDigits}%`);
  if (f.fromMs !== undefined) q = q.where('m.created_at', '>=', f.fromMs);
  if (f.toMs !== undefined) q = q.where('m.created_at', '<', f.toMs);
  if (cursor)
    q = q.where((eb) =>
      eb.or([
        eb('m.created_at', '<', cursor.createdAt),
        eb.and([eb('m.created_at', '=', cursor.createdAt), eb('m.id', '<', cursor.id)]),
      ]),
    );
  const rows = await q.orderBy('m.created_at', 'desc').orderBy('m.id', 'desc').limit(limit).execute();
  return rows.map((r) => ({
    id: Number(r.id),
    created_at: Number(r.created_at),
    username: r.username,
    phone: r.phone,
    source: r.source ?? '',
    carrier: r.carrier,
    state: r.state,
    status: r.status === null ? null : Number(r.status),
    text: String(r.text ?? ''),
  }));
}
