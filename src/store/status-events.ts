// Delivery status changes of messages: the rows they touch and the `dlr` push event each one records, in
// the caller's transaction. Shared by the dispatcher (failed, blocked), receipts and the sweeper.
import { CompiledQuery } from 'kysely';
import { dlrFields } from '../domain/push-fields.ts';
import type { DeliveryStatus } from '../domain/status.ts';
import type { Queryable } from './engine/db.ts';
import { dialectOf } from './engine/dialect.ts';
import { recordPushEvents, type PushEventInput } from './push.ts';
import type { MessageState } from './schema/sending.ts';
import { queueSmppReceipts } from './smpp-outbox.ts';

/** One message's status changed (what a `dlr` push event says about it). */
export interface StatusChange {
  messageId: number;
  accountId: number;
  campaignId: number;
  externalId: string | null;
  phone: string;
  carrier: string | null;
  status: DeliveryStatus;
  /** When the status happened. */
  at: number;
}

/** The columns a status change reads from a message. */
export interface MessageForUpdate {
  id: number;
  account_id: number;
  campaign_id: number;
  external_id: string | null;
  phone: string;
  carrier: string | null;
  state: MessageState;
  status: DeliveryStatus | null;
  parts: number;
}

const CHUNK = 500;

/** Records a `dlr` push event per change (nothing is stored for accounts without a dlr URL). */
export async function recordStatusEvents(db: Queryable, changes: StatusChange[], now: number): Promise<void> {
  if (changes.length === 0) return;
  // Messages submitted over SMPP get their receipts back as deliver_sm too.
  await queueSmppReceipts(db, changes, now);
  // Building the fields (a zoned date per event) costs more than the rest: skip accounts without a dlr URL
  // (recordPushEvents would store nothing for them anyway).
  const listening = await accountsWithDlrUrl(db, [...new Set(changes.map((c) => c.accountId))]);
  if (listening.size === 0) return;
  changes = changes.filter((c) => listening.has(c.accountId));
  const zones = await timeZones(db, [...listening]);
  const events: PushEventInput[] = changes.map((c) => ({
    accountId: c.accountId,
    type: 'dlr',
    orderKey: String(c.messageId),
    now,
    fields: dlrFields({
      externalId: c.externalId,
      status: c.status,
      date: c.at,
      phone: c.phone,
      operator: c.carrier,
      shipmentId: c.campaignId,
      timeZone: zones.get(c.accountId) ?? 'Asia/Jerusalem',
    }),
  }));
  await recordPushEvents(db, events);
}

/**
 * Records a `dlr` push event for each of a campaign's messages in `state`, for statuses set on a whole
 * campaign at once (a cancel's 104). Reads nothing when the account has no dlr URL.
 */
export async function recordCampaignStatusEvents(
  db: Queryable,
  campaign: { id: number; accountId: number },
  state: MessageState,
  status: DeliveryStatus,
  now: number,
): Promise<void> {
  if ((await accountsWithDlrUrl(db, [campaign.accountId])).size === 0) return;
  for (let after = 0; ; ) {
    const page = await db
      .selectFrom('messages')
      .select(['id', 'external_id', 'phone', 'carrier'])
      .where('campaign_id', '=', campaign.id)
      .where('state', '=', state)
      .where('id', '>', after)
      .orderBy('id')
      .limit(CHUNK)
      .execute();
    if (page.length === 0) return;
    after = Number(page[page.length - 1].id);
    await recordStatusEvents(
      db,
      page.map((m) => ({
        messageId: Number(m.id),
        accountId: campaign.accountId,
        campaignId: campaign.id,
        externalId: m.external_id,
        phone: m.phone,
        carrier: m.carrier,
        status,
        at: now,
      })),
      now,
    );
  }
}

/** The accounts among these with a live (registered or disabled) dlr push registration. */
async function accountsWithDlrUrl(db: Queryable, accountIds: number[]): Promise<Set<number>> {
  const out = new Set<number>();
  for (let i = 0; i < accountIds.length; i += CHUNK) {
    const rows = await db
      .selectFrom('push_registrations')
      .select('account_id')
      .where('account_id', 'in', accountIds.slice(i, i + CHUNK))
      .where('type', '=', 'dlr')
      .where('state', '<>', 'deleted')
      .execute();
    for (const r of rows) out.add(Number(r.account_id));
  }
  return out;
}

/** The time zone of each account. */
export async function timeZones(db: Queryable, accountIds: number[]): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  for (let i = 0; i < accountIds.length; i += CHUNK) {
    const rows = await db
      .selectFrom('accounts')
      .select(['id', 'time_zone'])
      .where('id', 'in', accountIds.slice(i, i + CHUNK))
      .execute();
    for (const r of rows) out.set(Number(r.id), r.time_zone);
  }
  return out;
}

/** Reads messages about to change status (locked FOR UPDATE on PostgreSQL, in id order), by id. */
export async function loadMessagesForUpdate(db: Queryable, ids: number[]): Promise<MessageForUpdate[]> {
  const dialect = dialectOf(db);
  const sorted = [...ids].sort((a, b) => a - b);
  const out: MessageForUpdate[] = [];
  for (let i = 0; i < sorted.length; i += CHUNK) {
    let q = db
      .selectFrom('messages')
      .select(['id', 'account_id', 'campaign_id', 'external_id', 'phone', 'carrier', 'state', 'status', 'parts'])
      .where('id', 'in', sorted.slice(i, i + CHUNK))
      .orderBy('id');
    if (dialect === 'postgres') q = q.forUpdate();
    for (const r of await q.execute()) {
      out.push({
        ...r,
        id: Number(r.id),
        account_id: Number(r.account_id),
        campaign_id: Number(r.campaign_id),
        status: r.status === null ? null : (Number(r.status) as DeliveryStatus),
        parts: Number(r.parts),
      });
    }
  }
  return out;
}

/** Sets status, status time and state of many messages (one statement per chunk on PostgreSQL). */
export async function updateMessageStatuses(
  db: Queryable,
  rows: Array<{ id: number; status: number; at: number; state: MessageState }>,
): Promise<void> {
  const dialect = dialectOf(db);
  if (rows.length === 0) return;
  if (dialect === 'postgres') {
    for (let i = 0; i < rows.length; i += 5000) {
      const chunk = rows.slice(i, i + 5000);
      await db.executeQuery(
        CompiledQuery.raw(
          'update messages m set status = v.status, status_at = v.at, state = v.state from (select unnest($1::bigint[]) as id, ' +
            'unnest($2::int[]) as status, unnest($3::bigint[]) as at, unnest($4::text[]) as state) v where m.id = v.id',
          [chunk.map((r) => r.id), chunk.map((r) => r.status), chunk.map((r) => r.at), chunk.map((r) => r.state)],
        ),
      );
    }
    return;
  }
  // SQLite: one UPDATE ... FROM (VALUES ...) per 300 rows (4 bound values each).
  for (let i = 0; i < rows.length; i += 300) {
    const chunk = rows.slice(i, i + 300);
    const params: unknown[] = [];
    for (const r of chunk) params.push(r.id, r.status, r.at, r.state);
    await db.executeQuery(
      CompiledQuery.raw(
        `with v(id, status, at, state) as (values ${new Array(chunk.length).fill('(?, ?, ?, ?)').join(', ')}) ` +
          'update messages set status = v.status, status_at = v.at, state = v.state from v where messages.id = v.id',
        params,
      ),
    );
  }
}
