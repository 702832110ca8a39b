// The message logs' read by part of a number (the customer's and the operator's): the newest keys of the matches
// first, from an index that holds the phone, then only those rows. Both logs read their keys and rows here, each
// with its own conditions.
import type { Expression, SqlBool } from 'kysely';
import type { Queryable } from './engine/db.ts';

/** A message's key: its id, and when it was accepted (the row's key on PostgreSQL's monthly partitions). */
export interface MessageKey {
  id: number;
  created_at: number;
}

/** The keys of the newest `limit` messages `where` selects, newest first. */
export function newestMessageKeys(
  db: Queryable,
  where: (eb: any) => Expression<SqlBool>,
  limit: number,
): Promise<MessageKey[]> {
  return db
    .selectFrom('messages')
    .select(['id', 'created_at'])
    .where(where)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** The condition selecting exactly those keys' rows; their times keep PostgreSQL to the months holding them. */
export function atMessageKeys(eb: any, keys: readonly MessageKey[]): Expression<SqlBool> {
  return eb.and([
    eb(
      'id',
      'in',
      keys.map((k) => k.id),
    ),
    eb('created_at', 'in', [...new Set(keys.map((k) => k.created_at))]),
  ]);
}
