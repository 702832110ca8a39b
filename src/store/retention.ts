// Retention: what is older than YONA_RETENTION_DAYS goes, a batch per transaction. A campaign goes once it is
// over (sent or cancelled, with no message still queued or awaiting its receipt) and was created before the
// cutoff, with its messages, their carrier ids, short links and clicks; inbound messages, unrouted inbound
// messages, unjoined inbound parts and unmatched receipts by when they arrived. Ledger rows stay: they are the
// account's money.
import type { Db, Queryable } from './engine/db.ts';

/** Message states that still expect work or a receipt: a campaign with any of them is kept. */
export const OPEN_MESSAGE_STATES = ['scheduled', 'queued', 'submitting', 'submitted'] as const;
/** Messages removed per statement, so a 100,000-recipient campaign does not become one huge transaction. */
const MESSAGE_BATCH = 5000;

export interface Purged {
  campaigns: number;
  messages: number;
  inbound: number;
}

// Campaigns created before the cutoff that are over, oldest first.
async function expiredCampaigns(db: Queryable, cutoff: number, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('campaigns as c')
    .select('c.id')
    .where('c.created_at', '<', cutoff)
    .where('c.state', 'in', ['sent', 'cancelled'])
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('messages as m')
            .select('m.id')
            .whereRef('m.campaign_id', '=', 'c.id')
            .where('m.state', 'in', [...OPEN_MESSAGE_STATES]),
        ),
      ),
    )
    .orderBy('c.created_at')
    .orderBy('c.id')
    .limit(limit)
    .execute();
  return rows.map((r) => Number(r.id));
}

// A campaign's messages (and their carrier ids), a batch at a time; then the campaign row, whose short links
// and clicks go with it (ON DELETE CASCADE).
async function purgeCampaign(db: Db, id: number): Promise<number> {
  let messages = 0;
  for (;;) {
    const n = await db.transaction().execute(async (trx) => {
      const ids = (
        await trx.selectFrom('messages').select('id').where('campaign_id', '=', id).limit(MESSAGE_BATCH).execute()
      ).map((r) => Number(r.id));
      if (ids.length === 0) return 0;
      await trx.deleteFrom('carrier_message_ids').where('message_id', 'in', ids).execute();
      await trx.deleteFrom('messages').where('id', 'in', ids).execute();
      return ids.length;
    });
    messages += n;
    if (n < MESSAGE_BATCH) break;
  }
  await db.deleteFrom('campaigns').where('id', '=', id).execute();
  return messages;
}

// Rows of a table keyed by an arrival time, a batch per statement.
async function purgeByTime(
  db: Db,
  table: 'inbound_messages' | 'unrouted_inbound' | 'inbound_parts',
  cutoff: number,
  batch: number,
): Promise<number> {
  let total = 0;
  for (;;) {
    const ids = (
      await db
        .selectFrom(table)
        .select('id')
        .where('received_at', '<', cutoff)
        .orderBy('received_at')
        .limit(batch)
        .execute()
    ).map((r) => Number(r.id));
    if (ids.length === 0) return total;
    await db.deleteFrom(table).where('id', 'in', ids).execute();
    total += ids.length;
    if (ids.length < batch) return total;
  }
}

/** Removes what is older than `cutoff` (ms since the epoch); returns what went. */
export async function purgeOlderThan(db: Db, cutoff: number, batch = 500): Promise<Purged> {
  const purged: Purged = { campaigns: 0, messages: 0, inbound: 0 };
  for (;;) {
    const ids = await expiredCampaigns(db, cutoff, batch);
    for (const id of ids) {
      purged.messages += await purgeCampaign(db, id);
      purged.campaigns++;
    }
    if (ids.length < batch) break;
  }
  for (const table of ['inbound_messages', 'unrouted_inbound', 'inbound_parts'] as const)
    purged.inbound += await purgeByTime(db, table, cutoff, batch);
  await db.deleteFrom('pending_receipts').where('created_at', '<', cutoff).execute();
  return purged;
}
