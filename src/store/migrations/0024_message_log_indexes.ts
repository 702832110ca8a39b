// The console's message log reads an account's messages newest first by (created_at, id), narrowed by a time
// range, a campaign or an outcome. Three indexes keep a filtered page to the rows it shows on a store of
// millions: the account's messages by time, a campaign's messages by time, and, holding only unsuccessful
// messages (failed or blocked: a few in a hundred), the account's failures by time. The last one's predicate is
// written exactly as store/console-messages.ts queries it (the embedded store matches the term's text).
// On PostgreSQL an index on the partitioned messages table is created on every month's partition.
import { sql, type Kysely, type SqlBool } from 'kysely';
import type { Dialect } from '../db.ts';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createIndex('messages_account_time')
    .on('messages')
    .columns(['account_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('messages_campaign_time')
    .on('messages')
    .columns(['campaign_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('messages_account_unsuccessful')
    .on('messages')
    .columns(['account_id', 'created_at', 'id'])
    .where(sql.raw<SqlBool>(`(state in ('failed', 'skipped') or (state = 'done' and status <> 102))`))
    .execute();
}
