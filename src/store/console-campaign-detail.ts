// Read models of the console's campaign page beyond its counts: the text it sent (its first message's), and its
// messages counted per state, status and carrier error (what failed, and why). Every query names the account.
import type { Queryable } from './engine/db.ts';

export interface StatusBreakdownRow {
  state: string;
  status: number | null;
  error: string | null;
  count: number;
}

/** The campaign's messages counted per state, delivery status and carrier error, most frequent first. */
export async function campaignBreakdown(
  db: Queryable,
  accountId: number,
  campaignId: number,
): Promise<StatusBreakdownRow[]> {
  const rows = await db
    .selectFrom('messages')
    .select(['state', 'status', 'error', (eb) => eb.fn.countAll<number>().as('n')])
    .where('account_id', '=', accountId)
    .where('campaign_id', '=', campaignId)
    .groupBy(['state', 'status', 'error'])
    .execute();
  return rows
    .map((r) => ({
      state: r.state,
      status: r.status === null ? null : Number(r.status),
      error: r.error,
      count: Number(r.n),
    }))
    .sort((a, b) => b.count - a.count);
}

/** The text of the campaign's first message (a bulk send's texts differ per recipient), or undefined. */
export async function campaignText(
  db: Queryable,
  accountId: number,
  campaignId: number,
): Promise<{ text: string; priority: number; channel: string } | undefined> {
  const row = await db
    .selectFrom('messages')
    .select(['text', 'priority', 'channel'])
    .where('account_id', '=', accountId)
    .where('campaign_id', '=', campaignId)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row && { text: row.text, priority: Number(row.priority), channel: row.channel };
}
