// The operator's message log (/admin/messages) on a store of millions: its two indexes of migration 0049 carry the
// phone too, so a search for part of a number across accounts (or one carrier's) reads the index alone, and two
// partial indexes by time hold only the rows of a rare outcome: the unsuccessful messages (failed, blocked or not
// delivered: a few in a hundred; the predicate written exactly as store/console-messages.ts queries it, for the
// embedded store matches the term's text) and the messages still on their way (the queue, usually small), so a
// page of either reads only its own rows, whatever the rest of the store holds.
import { sql, type Kysely, type SqlBool } from 'kysely';
import type { Dialect } from '../types.ts';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.dropIndex('messages_time').execute();
  await db.schema.createIndex('messages_time_phone').on('messages').columns(['created_at', 'id', 'phone']).execute();
  await db.schema.dropIndex('messages_carrier_time').execute();
  await db.schema
    .createIndex('messages_carrier_time_phone')
    .on('messages')
    .columns(['carrier', 'created_at', 'id', 'phone'])
    .execute();
  await db.schema
    .createIndex('messages_unsuccessful_time')
    .on('messages')
    .columns(['created_at', 'id'])
    .where(sql.raw<SqlBool>(`(state in ('failed', 'skipped') or (state = 'done' and status <> 102))`))
    .execute();
  await db.schema
    .createIndex('messages_pending_time')
    .on('messages')
    .columns(['created_at', 'id'])
    .where(sql.raw<SqlBool>(`state in ('scheduled', 'queued', 'submitting', 'submitted')`))
    .execute();
}
