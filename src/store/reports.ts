// Reads behind the polling operations: delivery reports by external id or by date, always scoped to one account.
import type { Queryable } from './engine/db.ts';

/** A message as a delivery report shows it. */
export interface ReportRow {
  id: number;
  external_id: string | null;
  status: number;
  status_at: number;
  phone: string;
  carrier: string | null;
  campaign_id: number;
  /** 'call' for a voice call, with the seconds an answered one played. */
  channel: string;
  call_seconds: number | null;
  /** The carrier's own code of a failure (Meta's error code of a WhatsApp message). */
  carrier_error: string | null;
}

const CHUNK = 500;
const COLUMNS = [
  'id',
  'external_id',
  'status',
  'status_at',
  'phone',
  'carrier',
  'campaign_id',
  'created_at',
  'submitted_at',
  'channel',
  'call_seconds',
  'carrier_error',
] as const;

function toReport(r: {
  id: number;
  external_id: string | null;
  status: number | null;
  status_at: number | null;
  phone: string;
  carrier: string | null;
  campaign_id: number;
  channel: string;
  call_seconds: number | null;
  carrier_error: string | null;
}): ReportRow {
  return {
    id: Number(r.id),
    external_id: r.external_id,
    status: Number(r.status),
    status_at: Number(r.status_at),
    phone: r.phone,
    carrier: r.carrier,
    campaign_id: Number(r.campaign_id),
    channel: r.channel,
    call_seconds: r.call_seconds === null ? null : Number(r.call_seconds),
    carrier_error: r.carrier_error,
  };
}

/**
 * The account's reports for messages carrying one of these external ids that were accepted or submitted
 * within [from, to]; only messages that have a status (not those still waiting to go out). Id order.
 */
export async function reportsByExternalIds(
  db: Queryable,
  accountId: number,
  externalIds: string[],
  from: number,
  to: number,
  limit: number,
): Promise<ReportRow[]> {
  const out: ReportRow[] = [];
  const unique = [...new Set(externalIds)];
  for (let i = 0; i < unique.length && out.length < limit; i += CHUNK) {
    const rows = await db
      .selectFrom('messages')
      .select([...COLUMNS])
      .where('account_id', '=', accountId)
      .where('external_id', 'in', unique.slice(i, i + CHUNK))
      .where('status', 'is not', null)
      .execute();
    for (const r of rows) {
      const inWindow = (t: number | null) => t !== null && Number(t) >= from && Number(t) <= to;
      if (inWindow(r.created_at) || inWindow(r.submitted_at)) out.push(toReport(r));
    }
  }
  return out.sort((a, b) => a.id - b.id).slice(0, limit);
}

/** The account's reports whose current status dates from within [from, to], oldest first, at most `limit`. */
export async function reportsByDate(
  db: Queryable,
  accountId: number,
  from: number,
  to: number,
  limit: number,
): Promise<ReportRow[]> {
  const rows = await db
    .selectFrom('messages')
    .select([...COLUMNS])
    .where('account_id', '=', accountId)
    .where('status_at', '>=', from)
    .where('status_at', '<=', to)
    .where('status', 'is not', null)
    .orderBy('status_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(toReport);
}
