// Birthday campaigns and the record of greetings sent (one per contact, campaign and local year).
import { sql, type Expression, type Selectable, type SqlBool } from 'kysely';
import type { DynamicFieldName } from '../domain/templates.ts';
import type { ContactRow } from './contacts.ts';
import type { Queryable } from './engine/db.ts';
import type { BirthdayCampaignTable } from './schema/audience.ts';

/** A birthday campaign row. */
export type BirthdayCampaign = Selectable<BirthdayCampaignTable>;

/** What a new birthday campaign holds. */
export interface NewBirthdayCampaign {
  accountId: number;
  listId: number;
  name: string;
  message: string;
  source: string;
  hour: number;
  dobField: DynamicFieldName;
  now: number;
}

/** Fields an edit may change. */
export type BirthdayCampaignChanges = Partial<
  Pick<BirthdayCampaign, 'name' | 'message' | 'source' | 'hour' | 'dob_field' | 'active'>
>;

/** An active campaign with what the worker needs to decide whether it is due. */
export interface ActiveBirthdayCampaign extends BirthdayCampaign {
  time_zone: string;
  list_updated_at: number;
}

/** Stores a new, active campaign; returns its id. */
export async function insertBirthdayCampaign(db: Queryable, c: NewBirthdayCampaign): Promise<number> {
  const row = await db
    .insertInto('birthday_campaigns')
    .values({
      account_id: c.accountId,
      list_id: c.listId,
      name: c.name,
      message: c.message,
      source: c.source,
      hour: c.hour,
      dob_field: c.dobField,
      active: 1,
      created_at: c.now,
      updated_at: c.now,
      checked_day: null,
      checked_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** The account's campaigns, oldest first. */
export async function listBirthdayCampaigns(db: Queryable, accountId: number): Promise<BirthdayCampaign[]> {
  return db.selectFrom('birthday_campaigns').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}

/** The account's campaign with this id; another account's is never found. */
export async function findBirthdayCampaign(
  db: Queryable,
  accountId: number,
  id: number,
): Promise<BirthdayCampaign | undefined> {
  if (!Number.isSafeInteger(id) || id <= 0) return undefined;
  return db
    .selectFrom('birthday_campaigns')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

/** Applies an edit; the worker looks at the campaign afresh on its next run. */
export async function updateBirthdayCampaign(
  db: Queryable,
  id: number,
  changes: BirthdayCampaignChanges,
  now: number,
): Promise<void> {
  await db
    .updateTable('birthday_campaigns')
    .set({ ...changes, updated_at: now, checked_day: null, checked_at: null })
    .where('id', '=', id)
    .execute();
}

/** Every active campaign of every account, with the account's time zone and the list's last change. */
export async function activeBirthdayCampaigns(db: Queryable): Promise<ActiveBirthdayCampaign[]> {
  return db
    .selectFrom('birthday_campaigns as b')
    .innerJoin('accounts as a', 'a.id', 'b.account_id')
    .innerJoin('contact_lists as l', 'l.id', 'b.list_id')
    .selectAll('b')
    .select(['a.time_zone', 'l.updated_at as list_updated_at'])
    .where('b.active', '=', 1)
    .orderBy('b.id')
    .execute();
}

/** Notes that the campaign's run for a local day (yyyymmdd) is complete. */
export async function markBirthdayCampaignChecked(db: Queryable, id: number, day: number, now: number): Promise<void> {
  await db.updateTable('birthday_campaigns').set({ checked_day: day, checked_at: now }).where('id', '=', id).execute();
}

/**
 * Contacts of the list whose `dobField` may be one of these day/month pairs and who have no greeting from
 * this campaign in `year`. The SQL match is coarse (d/m, dd/mm, with / . or -, optionally followed by a
 * year); callers confirm with parseDayMonth.
 */
export async function birthdayCandidates(
  db: Queryable,
  campaign: Pick<BirthdayCampaign, 'id' | 'list_id' | 'dob_field'>,
  dates: { day: number; month: number }[],
  year: number,
): Promise<ContactRow[]> {
  const field = campaign.dob_field as DynamicFieldName;
  const patterns = [...new Set(dates.flatMap(({ day, month }) => datePatterns(day, month)))];
  return db
    .selectFrom('contacts as c')
    .select(['c.id', 'c.phone', 'c.df1', 'c.df2', 'c.df3', 'c.df4', 'c.df5', 'c.df6'])
    .where('c.list_id', '=', campaign.list_id)
    .where((eb) => {
      const value: Expression<string> = sql<string>`trim(${sql.ref(`c.${field}`)})`;
      const ors: Expression<SqlBool>[] = patterns.flatMap((p) => [eb(value, '=', p), eb(value, 'like', `${p}_%`)]);
      return eb.or(ors);
    })
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('birthday_sends as s')
            .select('s.id')
            .where('s.campaign_id', '=', campaign.id)
            .where('s.year', '=', year)
            .whereRef('s.phone', '=', 'c.phone'),
        ),
      ),
    )
    .orderBy('c.id')
    .execute();
}

function datePatterns(day: number, month: number): string[] {
  const days = [...new Set([String(day), String(day).padStart(2, '0')])];
  const months = [...new Set([String(month), String(month).padStart(2, '0')])];
  return days.flatMap((d) => months.flatMap((m) => ['/', '.', '-'].map((sep) => `${d}${sep}${m}`)));
}

/**
 * Records greetings for these contacts in `year`; returns the ids actually recorded. A number already greeted
 * by this campaign this year (by an earlier or a concurrent run, or as a contact since removed and added again)
 * is skipped: the unique row per campaign, phone and year is what prevents a second send.
 */
export async function recordBirthdaySends(
  db: Queryable,
  campaignId: number,
  year: number,
  contacts: Pick<ContactRow, 'id' | 'phone'>[],
  now: number,
): Promise<Set<number>> {
  const recorded = new Set<number>();
  for (let i = 0; i < contacts.length; i += 1000) {
    const rows = await db
      .insertInto('birthday_sends')
      .values(
        contacts
          .slice(i, i + 1000)
          .map((c) => ({ campaign_id: campaignId, contact_id: c.id, year, phone: c.phone, sent_at: now })),
      )
      .onConflict((oc) => oc.columns(['campaign_id', 'phone', 'year']).doNothing())
      .returning('contact_id')
      .execute();
    for (const r of rows) recorded.add(Number(r.contact_id));
  }
  return recorded;
}

/** One send the worker asks for: the same text to these phones (international form). */
export interface BirthdaySend {
  accountId: number;
  source: string;
  /** Dynamic fields already merged (recipients sharing a text share a send). */
  message: string;
  phones: string[];
  campaignName: string;
  birthdayCampaignId: number;
}

/** The send path as the birthday worker uses it (the operations implement it): must do its writes on `db`, the worker's transaction. */
export type BirthdaySender = (db: Queryable, send: BirthdaySend) => Promise<unknown>;
