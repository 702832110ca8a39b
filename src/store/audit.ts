// The audit log: one row per change an operator made, from the console or the CLI. Rows are only ever appended
// (a trigger refuses UPDATE and DELETE, migration 0048); read newest first, filtered, for /admin/audit and its CSV.
import type { Queryable } from './engine/db.ts';

export interface AuditEntry {
  id: number;
  at: number;
  operator: string;
  via: 'console' | 'cli';
  address: string;
  action: string;
  subject: string;
  /** The state before and after, as JSON text (null: none). */
  before: string | null;
  after: string | null;
}

export type NewAuditEntry = Omit<AuditEntry, 'id'>;

/** Appends one row to the audit log (in the caller's transaction: it commits with the change it records). */
export async function appendAudit(db: Queryable, entry: NewAuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      at: entry.at,
      operator: entry.operator,
      via: entry.via,
      address: entry.address,
      action: entry.action,
      subject: entry.subject,
      before: entry.before,
      after: entry.after,
    })
    .execute();
}

export interface AuditFilter {
  operator?: string;
  action?: string;
  subject?: string;
  from?: number;
  to?: number;
  /** Rows with an id below this (the next page of a list newest first). */
  before?: number;
  limit: number;
}

/** Audit rows newest first, filtered by operator, action, subject (exact) and time. */
export async function auditPage(db: Queryable, f: AuditFilter): Promise<AuditEntry[]> {
  let q = db.selectFrom('audit_log').selectAll();
  if (f.operator) q = q.where('operator', '=', f.operator);
  if (f.action) q = q.where('action', '=', f.action);
  if (f.subject) q = q.where('subject', '=', f.subject);
  if (f.from !== undefined) q = q.where('at', '>=', f.from);
  if (f.to !== undefined) q = q.where('at', '<', f.to);
  if (f.before !== undefined) q = q.where('id', '<', f.before);
  const rows = await q.orderBy('id', 'desc').limit(f.limit).execute();
  return rows.map((r) => ({
    id: Number(r.id),
    at: Number(r.at),
    operator: r.operator,
    via: r.via === 'cli' ? 'cli' : 'console',
    address: r.address,
    action: r.action,
    subject: r.subject,
    before: r.before,
    after: r.after,
  }));
}

/** An account's settings as the audit log shows them before and after an operator's change. */
export async function accountAuditRow(db: Queryable, accountId: number): Promise<Record<string, unknown> | null> {
  const a = await db
    .selectFrom('accounts')
    .select([
      'credits',
      'intl_agorot',
      'suspended_at',
      'suspended_by',
      'suspension_reason',
      'closed_at',
      'ip_check',
      'legacy_password',
      'otp_international',
      'low_balance_credits',
      'is_reseller',
      'push_allow_private',
    ])
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!a) return null;
  return {
    credits: Number(a.credits),
    international_agorot: Number(a.intl_agorot),
    suspended: a.suspended_at != null,
    suspended_by: a.suspended_by ?? null,
    suspension_reason: a.suspension_reason ?? null,
    closed: a.closed_at != null,
    ip_check: !!a.ip_check,
    legacy_password: !!a.legacy_password,
    otp_international: !!a.otp_international,
    low_balance_credits: a.low_balance_credits == null ? null : Number(a.low_balance_credits),
    reseller: !!a.is_reseller,
    push_allow_private: !!a.push_allow_private,
  };
}
