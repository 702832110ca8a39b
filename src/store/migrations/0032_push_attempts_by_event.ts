// push_attempts by event: the console's page of one message lists every attempt to push each of its reports,
// found by the event's id (the delivery log's other index is by registration, which holds every event's attempts).
import type { Kysely } from 'kysely';
import type { Dialect } from '../types.ts';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.createIndex('push_attempts_event').on('push_attempts').columns(['event_id', 'id']).execute();
}
