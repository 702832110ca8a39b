// The console's replies page: an account's inbound messages newest first by keyset (received_at, id), searched by
// part of the sender's number or of the text; for each, the campaign it answers where known (the account's
// latest message to that sender sent before it arrived) and whether its sender is blocked by a removal reply.
import { sql } from 'kysely';
import type { Queryable } from './engine/db.ts';
import type { InboundRow as IncomingRow } from './inbound.ts';

/** An inbound message as the console's replies page shows it. */
export interface InboundRow extends IncomingRow {
  campaign_id: number | null;
  campaign_name: string | null;
  /** The sender was blocked by a removal keyword in a reply (blocklist source `reply-stop`). */
  blocked_by_reply: boolean;
}

export interface InboundCursor {
  receivedAt: number;
  id: number;
}

export async function inboundPage(
  db: Queryable,
  accountId: number,
  o: { search?: string; cursor?: InboundCursor; limit: number },
): Promise<InboundRow[]> {
  let q = db
    .selectFrom('inbound_messages')
    .select(['id', 'phone', 'dest', 'text', 'received_at', 'channel'])
    .where('account_id', '=', accountId);
  if (o.search) {
    const like = `%${o.search.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
    const digits = o.search.replace(/\D/g, '').replace(/^0/, '');
    q = q.where((eb) =>
      eb.or([
        eb('text', 'like', sql<string>`${like} escape '\\'`),
        ...(digits ? [eb('phone', 'like', `%${digits}%`)] : []),
      ]),
    );
  }
  if (o.cursor) {
    const c = o.cursor;
    q = q.where((eb) => eb(eb.refTuple('received_at', 'id'), '<', eb.tuple(c.receivedAt, c.id)));
  }
  const rows = await q.orderBy('received_at', 'desc').orderBy('id', 'desc').limit(o.limit).execute();
  const phones = [...new Set(rows.map((r) => r.phone))];
  const blocked = new Set(
    phones.length === 0
      ? []
      : (
          await db
            .selectFrom('blocklist')
            .select('phone')
            .where('account_id', '=', accountId)
            .where('source', '=', 'reply-stop')
            .where('phone', 'in', phones)
            .execute()
        ).map((b) => b.phone),
  );
  return Promise.all(
    rows.map(async (r) => {
      const answered = await db
        .selectFrom('messages')
        .innerJoin('campaigns', 'campaigns.id', 'messages.campaign_id')
        .select(['campaigns.id', 'campaigns.name'])
        .where('messages.account_id', '=', accountId)
        .where('messages.phone', '=', r.phone)
        .where('messages.created_at', '<=', Number(r.received_at))
        .orderBy('messages.created_at', 'desc')
        .limit(1)
        .executeTakeFirst();
      return {
        id: Number(r.id),
        phone: r.phone,
        dest: r.dest,
        text: r.text,
        received_at: Number(r.received_at),
        channel: r.channel,
        campaign_id: answered ? Number(answered.id) : null,
        campaign_name: answered?.name ?? null,
        blocked_by_reply: blocked.has(r.phone),
      };
    }),
  );
}
