// Campaign rows: creation, lookup by id and name (always scoped to the account), and the guarded state
// changes cancel and the scheduler make (UPDATE ... WHERE state = 'scheduled', safe across processes).
import { sql, type Selectable } from 'kysely';
import { runPreparedWrite, type Queryable } from './engine/db.ts';
import type { CampaignState, CampaignTable } from './schema/sending.ts';

export type Campaign = Selectable<CampaignTable>;

export interface NewCampaign {
  accountId: number;
  name: string | null;
  kind: string;
  source: string;
  /** 'scheduled' when it goes out later, else 'queued'. */
  state: CampaignState;
  scheduledAt: number | null;
  recipients: number;
  creditsCharged: number;
  agorotCharged: number;
  options: Record<string, unknown>;
  now: number;
}

/** The columns a new campaign sets, in the order of campaignValues. */
export const CAMPAIGN_COLUMNS = [
  'account_id',
  'name',
  'kind',
  'source',
  'state',
  'scheduled_at',
  'recipients',
  'credits_charged',
  'agorot_charged',
  'options',
  'created_at',
  'released_at',
] as const;

/** A new campaign's values, in the order of CAMPAIGN_COLUMNS. */
export function campaignValues(c: NewCampaign): unknown[] {
  return [
    c.accountId,
    c.name,
    c.kind,
    c.source,
    c.state,
    c.scheduledAt,
    c.recipients,
    c.creditsCharged,
    c.agorotCharged,
    JSON.stringify(c.options),
    c.now,
    c.state === 'queued' ? c.now : null,
  ];
}

/** Inserts a campaign; returns its id (a prepared statement: it runs on every send). */
export async function insertCampaign(db: Queryable, c: NewCampaign): Promise<number> {
  const row = await runPreparedWrite(db, insertCampaignQuery, campaignValues(c));
  return Number(row.id);
}

// Compiled once with placeholder values, and run with campaignValues.
function insertCampaignQuery(db: Queryable) {
  return db.insertInto('campaigns').values(Object.fromEntries(CAMPAIGN_COLUMNS.map((c) => [c, 0])) as never);
}

/** Records what a campaign cost (set after its messages were priced). */
export async function setCampaignCharges(
  db: Queryable,
  id: number,
  recipients: number,
  credits: number,
  agorot: number,
): Promise<void> {
  await db
    .updateTable('campaigns')
    .set({ recipients, credits_charged: credits, agorot_charged: agorot })
    .where('id', '=', id)
    .execute();
}

/** The account's campaign with this id; another account's campaign is never found. */
export async function findCampaign(db: Queryable, accountId: number, id: number): Promise<Campaign | undefined> {
  if (!Number.isSafeInteger(id) || id <= 0) return undefined;
  return db
    .selectFrom('campaigns')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

/** The account's campaigns carrying this name (id and state), oldest first. */
export async function findCampaignsByName(
  db: Queryable,
  accountId: number,
  name: string,
): Promise<Array<{ id: number; state: CampaignState }>> {
  return db
    .selectFrom('campaigns')
    .select(['id', 'state'])
    .where('account_id', '=', accountId)
    .where('name', '=', name)
    .orderBy('id')
    .execute();
}

/** Moves a scheduled campaign to cancelled; false when it was no longer scheduled. */
export async function markCampaignCancelled(db: Queryable, id: number, now: number): Promise<boolean> {
  const res = await db
    .updateTable('campaigns')
    .set({ state: 'cancelled', cancelled_at: now, finished_at: now })
    .where('id', '=', id)
    .where('state', '=', 'scheduled')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Ids of scheduled campaigns whose time has come, oldest due first. */
export async function dueCampaignIds(db: Queryable, now: number, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('campaigns')
    .select('id')
    // A literal, not a parameter, so the planner can use the partial index campaigns_due.
    .where('state', '=', sql.lit('scheduled'))
    .where('scheduled_at', '<=', now)
    .orderBy('scheduled_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => Number(r.id));
}

/**
 * Claims a due campaign for release (scheduled -> queued). Exactly one of several processes wins: the
 * UPDATE re-checks the state under the row lock. Returns the campaign's account id and its temp_bl days
 * (null when it has none), or undefined.
 */
export async function claimCampaignRelease(
  db: Queryable,
  id: number,
  now: number,
): Promise<{ accountId: number; tempBlDays: number | null } | undefined> {
  const row = await db
    .updateTable('campaigns')
    .set({ state: 'queued', released_at: now })
    .where('id', '=', id)
    .where('state', '=', 'scheduled')
    .where('scheduled_at', '<=', now)
    .returning(['account_id', 'options'])
    .executeTakeFirst();
  if (!row) return undefined;
  const tempBl = (JSON.parse(row.options) as { temp_bl?: unknown }).temp_bl;
  return { accountId: Number(row.account_id), tempBlDays: typeof tempBl === 'number' && tempBl > 0 ? tempBl : null };
}

/** Marks a released campaign finished (every message was skipped, nothing left to send). */
export async function markCampaignSent(db: Queryable, id: number, now: number): Promise<void> {
  await db
    .updateTable('campaigns')
    .set({ state: 'sent', finished_at: now })
    .where('id', '=', id)
    .where('state', '=', 'queued')
    .execute();
}

/** A finished campaign's account and its messages counted by delivery status (null: never submitted). */
export async function campaignOutcomeCounts(
  db: Queryable,
  campaignId: number,
): Promise<{ username: string | undefined; counts: { status: number | null; count: number }[] }> {
  const owner = await db
    .selectFrom('campaigns')
    .innerJoin('accounts', 'accounts.id', 'campaigns.account_id')
    .select('accounts.username')
    .where('campaigns.id', '=', campaignId)
    .executeTakeFirst();
  const rows = await db
    .selectFrom('messages')
    .select((eb) => ['status', eb.fn.countAll<number>().as('count')])
    .where('campaign_id', '=', campaignId)
    .groupBy('status')
    .execute();
  return { username: owner?.username, counts: rows.map((r) => ({ status: r.status, count: Number(r.count) })) };
}
