// The console's one-time codes page: an account's codes newest first by id (phone, when sent, its message's
// delivery, whether it was validated, replaced or expired, and the attempts made). Never the code: only its hash
// is stored. Every query names the account.
import type { Queryable } from './engine/db.ts';

export interface CodeRow {
  id: number;
  phone: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  replaced_at: number | null;
  attempts: number;
  max_tries: number;
  campaign_id: number | null;
  status: number | null;
  state: string | null;
}

export async function codesPage(db: Queryable, accountId: number, beforeId: number | undefined, limit: number) {
  let q = db
    .selectFrom('otp_codes as o')
    .leftJoin('messages as m', (j) =>
      j.onRef('m.campaign_id', '=', 'o.campaign_id').onRef('m.account_id', '=', 'o.account_id'),
    )
    .select([
      'o.id',
      'o.phone',
      'o.created_at',
      'o.expires_at',
      'o.used_at',
      'o.replaced_at',
      'o.attempts',
      'o.max_tries',
      'o.campaign_id',
      'm.status',
      'm.state',
    ])
    .where('o.account_id', '=', accountId);
  if (beforeId !== undefined) q = q.where('o.id', '<', beforeId);
  const rows = await q.orderBy('o.id', 'desc').limit(limit).execute();
  return rows.map(
    (r): CodeRow => ({
      id: Number(r.id),
      phone: r.phone,
      created_at: Number(r.created_at),
      expires_at: Number(r.expires_at),
      used_at: r.used_at === null ? null : Number(r.used_at),
      replaced_at: r.replaced_at === null ? null : Number(r.replaced_at),
      attempts: Number(r.attempts),
      max_tries: Number(r.max_tries),
      campaign_id: r.campaign_id === null ? null : Number(r.campaign_id),
      status: r.status === null || r.status === undefined ? null : Number(r.status),
      state: r.state ?? null,
    }),
  );
}
