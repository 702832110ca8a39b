// The registry of filtered (Kosher) phones, which refuse texts: a voice send of type 2 calls them instead.
import type { Queryable } from './engine/db.ts';

const CHUNK = 500;

/** The phones among `phones` (international form) known to be filtered. */
export async function filteredAmong(db: Queryable, phones: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < phones.length; i += CHUNK) {
    const rows = await db
      .selectFrom('filtered_phones')
      .select('phone')
      .where('phone', 'in', phones.slice(i, i + CHUNK))
      .execute();
    for (const r of rows) found.add(r.phone);
  }
  return found;
}

/** Adds phones to the registry ('receipt': a text came back 15; 'operator': imported); returns how many were new. */
export async function addFilteredPhones(
  db: Queryable,
  phones: string[],
  source: 'receipt' | 'operator',
  now: number,
): Promise<number> {
  let added = 0;
  const unique = [...new Set(phones)];
  for (let i = 0; i < unique.length; i += CHUNK) {
    const rows = await db
      .insertInto('filtered_phones')
      .values(unique.slice(i, i + CHUNK).map((phone) => ({ phone, source, created_at: now })))
      .onConflict((oc) => oc.column('phone').doNothing())
      .returning('phone')
      .execute();
    added += rows.length;
  }
  return added;
}
