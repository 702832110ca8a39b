// The operator's overview (/admin) counts messages by when a carrier took them and by when their final status
// came, over the last minute and the last day, on every account at once: two indexes holding only the messages
// that have such a time (an accepted message waiting for the dispatcher adds no entry to either), each with the
// columns those counts read, so that a count reads the index alone. The first also serves the delivery rate per
// carrier (the overview and the delivery-rate alert) and the margins report's range by submission time.
// On PostgreSQL an index on the partitioned messages table is created on every month's partition.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../types.ts';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createIndex('messages_submitted_time')
    .on('messages')
    .columns(['submitted_at', 'carrier', 'status'])
    .where(sql.ref('submitted_at'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('messages_status_time')
    .on('messages')
    .columns(['status_at', 'state'])
    .where(sql.ref('status_at'), 'is not', null)
    .execute();
}
