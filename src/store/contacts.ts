// Contact lists and their contacts (tenant-scoped through the list's account), with a streaming reader
// for the send path: keyset pages by id, so a list of millions is never held in memory at once.
import type { Selectable } from 'kysely';
import type { Queryable } from './db.ts';
import type { ContactListTable } from './schema-audience.ts';

export type ContactList = Selectable<ContactListTable>;

/** One contact as the send path reads it: phone in international form, dynamic fields or null. */
export interface ContactRow {
  id: number;
  phone: string;
  df1: string | null;
  df2: string | null;
  df3: string | null;
  df4: string | null;
  df5: string | null;
  df6: string | null;
}

/** A contact to insert (phone already normalized to international form). */
export type NewContact = Omit<ContactRow, 'id'>;

const CONTACT_COLUMNS = ['id', 'phone', 'df1', 'df2', 'df3', 'df4', 'df5', 'df6'] as const;
// 9 bound values per row: 1000 rows stay under SQLite's 32766 and PostgreSQL's 65535 parameters.
const INSERT_CHUNK = 1000;
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
export async function findContactList(db: Queryable, accountId: number, listId: number): Promise<ContactList | undefined> {
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
export async function insertContacts(db: Queryable, listId: number, contacts: NewContact[], now: number): Promise<string[]> {
  const seen = new Set<string>();
  const fresh = contacts.filter((c) => !seen.has(c.phone) && seen.add(c.phone));
  const added: string[] = [];
  for (let i = 0; i < fresh.length; i += INSERT_CHUNK) {
    const rows = fresh.slice(i, i + INSERT_CHUNK).map((c) => ({
      list_id: listId, phone: c.phone, df1: c.df1, df2: c.df2, df3: c.df3, df4: c.df4, df5: c.df5, df6: c.df6, created_at: now,
    }));
    const inserted = await db
      .insertInto('contacts')
      .values(rows)
      .onConflict((oc) => oc.columns(['list_id', 'phone']).doNothing())
      .returning('phone')
      .execute();
    for (const r of inserted) added.push(r.phone);
  }
  await adjustCount(db, listId, added.length, now);
  return added;
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

/** One page of a list's contacts in id order (getCLbyID). */
export async function pageContacts(db: Queryable, listId: number, offset: number, limit: number): Promise<ContactRow[]> {
  return db
    .selectFrom('contacts')
    .select(CONTACT_COLUMNS)
    .where('list_id', '=', listId)
    .orderBy('id')
    .offset(offset)
    .limit(limit)
    .execute();
}

/** Streams a whole list in id order, `batchSize` contacts at a time (keyset pagination; bounded memory). */
export async function* streamContacts(db: Queryable, listId: number, batchSize = 5000): AsyncIterable<ContactRow[]> {
  let after = 0;
  for (;;) {
    const batch = await db
      .selectFrom('contacts')
      .select(CONTACT_COLUMNS)
      .where('list_id', '=', listId)
      .where('id', '>', after)
      .orderBy('id')
      .limit(batchSize)
      .execute();
    if (batch.length === 0) return;
    yield batch;
    if (batch.length < batchSize) return;
    after = batch[batch.length - 1].id;
  }
}

async function adjustCount(db: Queryable, listId: number, delta: number, now: number): Promise<void> {
  await db
    .updateTable('contact_lists')
    .set((eb) => ({ contact_count: eb('contact_count', '+', delta), updated_at: now }))
    .where('id', '=', listId)
    .execute();
}
