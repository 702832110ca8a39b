// Contact lists and their contacts (tenant-scoped through the list's account), with a streaming reader
// for the send path: keyset pages by id, so a list of millions is never held in memory at once.
import { PostgresAdapter, sql, type Selectable } from 'kysely';
import type { Queryable } from './engine/db.ts';
import type { ContactListTable, ContactTable } from './schema/audience.ts';

/** A contact list row (contact_count kept in step with its contacts). */
export type ContactList = Selectable<ContactListTable>;

/** One contact as the send path reads it: phone in international form, dynamic fields or null. */
export type ContactRow = Omit<Selectable<ContactTable>, 'list_id' | 'created_at'>;

/** A contact to insert (phone already normalized to international form). */
export type NewContact = Omit<ContactRow, 'id'>;

const CONTACT_COLUMNS = ['id', 'phone', 'df1', 'df2', 'df3', 'df4', 'df5', 'df6'] as const;
// 9 bound values per row: 1000 rows stay under SQLite's 32766 parameters.
const INSERT_CHUNK = 1000;
const UNNEST_CHUNK = 10_000;
const PHONE_CHUNK = 500;

/** Creates an empty list for the account; returns its id. */
export async function createContactList(db: Queryable, accountId: number, name: string, now: number): Promise<number> {
  const row = await db
    .insertInto('contact_lists')
    .values({ account_id: accountId, name, contact_count: 0, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** The account's list with this id; another account's list is never found. */
export async function findContactList(
  db: Queryable,
  accountId: number,
  listId: number,
): Promise<ContactList | undefined> {
  if (!Number.isSafeInteger(listId) || listId <= 0) return undefined;
  return db
    .selectFrom('contact_lists')
    .selectAll()
    .where('id', '=', listId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

/** Every list of the account, oldest first. */
export async function listContactLists(db: Queryable, accountId: number): Promise<ContactList[]> {
  return db.selectFrom('contact_lists').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}

/** Deletes the account's list, its contacts and (by cascade) its birthday campaigns; false when not the account's. */
export async function deleteContactList(db: Queryable, accountId: number, listId: number): Promise<boolean> {
  if (!(await findContactList(db, accountId, listId))) return false;
  await db.deleteFrom('contacts').where('list_id', '=', listId).execute();
  await db.deleteFrom('contact_lists').where('id', '=', listId).where('account_id', '=', accountId).execute();
  return true;
}

/**
 * Adds contacts to a list, skipping numbers already in it (or repeated in `contacts`: the first wins);
 * returns the phones actually added. Keeps the list's count in step.
 */
export async function insertContacts(
  db: Queryable,
  listId: number,
  contacts: NewContact[],
  now: number,
): Promise<string[]> {
  const seen = new Set<string>();
  const fresh = contacts.filter((c) => !seen.has(c.phone) && seen.add(c.phone));
  const added: string[] = [];
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const chunk = postgres ? UNNEST_CHUNK : INSERT_CHUNK;
  for (let i = 0; i < fresh.length; i += chunk) {
    const part = fresh.slice(i, i + chunk);
    const inserted = postgres ? await insertUnnest(db, listId, part, now) : await insertValues(db, listId, part, now);
    for (const r of inserted) added.push(r.phone);
  }
  await adjustCount(db, listId, added.length, now);
  return added;
}

// Multi-row VALUES (SQLite, and the portable path).
function insertValues(db: Queryable, listId: number, part: NewContact[], now: number): Promise<{ phone: string }[]> {
  const rows = part.map((c) => ({
    list_id: listId,
    phone: c.phone,
    df1: c.df1,
    df2: c.df2,
    df3: c.df3,
    df4: c.df4,
    df5: c.df5,
    df6: c.df6,
    created_at: now,
  }));
  return db
    .insertInto('contacts')
    .values(rows)
    .onConflict((oc) => oc.columns(['list_id', 'phone']).doNothing())
    .returning('phone')
    .execute();
}

// PostgreSQL: one array parameter per column (UNNEST), about 3x the rows/s of VALUES and no parameter limit.
async function insertUnnest(
  db: Queryable,
  listId: number,
  part: NewContact[],
  now: number,
): Promise<{ phone: string }[]> {
  const column = (key: keyof NewContact) => part.map((c) => c[key]);
  const result = await sql<{ phone: string }>`
    insert into contacts (list_id, phone, df1, df2, df3, df4, df5, df6, created_at)
    select ${listId}::bigint, u.* , ${now}::bigint
    from unnest(${column('phone')}::text[], ${column('df1')}::text[], ${column('df2')}::text[], ${column('df3')}::text[],
                ${column('df4')}::text[], ${column('df5')}::text[], ${column('df6')}::text[]) as u
    on conflict (list_id, phone) do nothing
    returning phone`.execute(db);
  return result.rows;
}

/** Removes these phones from a list; returns the phones that were in it. */
export async function removeContacts(db: Queryable, listId: number, phones: string[], now: number): Promise<string[]> {
  const removed: string[] = [];
  const unique = [...new Set(phones)];
  for (let i = 0; i < unique.length; i += PHONE_CHUNK) {
    const rows = await db
      .deleteFrom('contacts')
      .where('list_id', '=', listId)
      .where('phone', 'in', unique.slice(i, i + PHONE_CHUNK))
      .returning('phone')
      .execute();
    for (const r of rows) removed.push(r.phone);
  }
  await adjustCount(db, listId, -removed.length, now);
  return removed;
}

/** Number of contacts in a list (kept on the list row, so O(1) for any size). */
export async function countContacts(db: Queryable, listId: number): Promise<number> {
  const row = await db.selectFrom('contact_lists').select('contact_count').where('id', '=', listId).executeTakeFirst();
  return row ? Number(row.contact_count) : 0;
}

/**
 * One page of a list's contacts in id order (getCLbyID): after the contact id `from.after` (a keyset page, as
 * cheap at the end of a 1,000,000-contact list as at its start), else `from.offset` rows in.
 */
export async function pageContacts(
  db: Queryable,
  listId: number,
  from: { offset: number } | { after: number },
  limit: number,
): Promise<ContactRow[]> {
  let query = db.selectFrom('contacts').select(CONTACT_COLUMNS).where('list_id', '=', listId);
  if ('after' in from) query = query.where('id', '>', from.after);
  query = query.orderBy('id').limit(limit);
  return ('offset' in from ? query.offset(from.offset) : query).execute();
}

/**
 * Streams a whole list in id order, at most `batchSize` contacts at a time, never the whole list in memory.
 * Keyset pages by id, each also bounded above by an id window: right after a bulk load PostgreSQL's stale
 * statistics make it sort every remaining row of the list for each page, and the window caps that work.
 * Contacts added after the stream started (ids beyond the list's highest at start) are not included.
 */
export async function* streamContacts(db: Queryable, listId: number, batchSize = 5000): AsyncIterable<ContactRow[]> {
  const bounds = await db
    .selectFrom('contacts')
    .select((eb) => [eb.fn.min('id').as('lo'), eb.fn.max('id').as('hi')])
    .where('list_id', '=', listId)
    .executeTakeFirst();
  if (!bounds || bounds.lo === null || bounds.hi === null) return;
  const last = Number(bounds.hi);
  let after = Number(bounds.lo) - 1;
  let span = batchSize * 2;
  while (after < last) {
    const upper = Math.min(after + span, last);
    const batch = await db
      .selectFrom('contacts')
      .select(CONTACT_COLUMNS)
      .where('list_id', '=', listId)
      .where('id', '>', after)
      .where('id', '<=', upper)
      .orderBy('id')
      .limit(batchSize)
      .execute();
    if (batch.length === batchSize) {
      // Full page: the window may hold more. Size the next window from the id range this page needed.
      const reached = batch[batch.length - 1].id;
      span = Math.max(batchSize * 2, (reached - after) * 2);
      after = reached;
    } else {
      // Window exhausted: the list is sparse here, widen the next one.
      after = upper;
      span *= 2;
    }
    if (batch.length > 0) yield batch;
  }
}

async function adjustCount(db: Queryable, listId: number, delta: number, now: number): Promise<void> {
  await db
    .updateTable('contact_lists')
    .set((eb) => ({ contact_count: eb('contact_count', '+', delta), updated_at: now }))
    .where('id', '=', listId)
    .execute();
}
