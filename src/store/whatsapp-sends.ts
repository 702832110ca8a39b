// Reads of a WhatsApp send's own messages (their ids answer 019's `unique`).
import type { Queryable } from './engine/db.ts';

/** The WhatsApp messages of a campaign, by id. */
export async function whatsappMessagesOf(
  db: Queryable,
  campaignId: number,
): Promise<Array<{ id: number; phone: string }>> {
  const rows = await db
    .selectFrom('messages')
    .select(['id', 'phone'])
    .where('campaign_id', '=', campaignId)
    .where('channel', '=', 'whatsapp')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ id: Number(r.id), phone: r.phone }));
}

/** The ids of a campaign's messages, in order. */
export async function campaignMessageIds(db: Queryable, campaignId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('messages')
    .select('id')
    .where('campaign_id', '=', campaignId)
    .orderBy('id')
    .execute();
  return rows.map((r) => Number(r.id));
}
