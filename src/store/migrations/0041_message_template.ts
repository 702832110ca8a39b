// A message's template payload (WhatsApp): the approved template it is sent as, with its parameters, as JSON;
// null for a message whose text is sent as it is. And where an inbound message came in (its channel).
import type { Kysely } from 'kysely';
import type { Dialect } from '../types.ts';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('messages').addColumn('template', 'text').execute();
  await db.schema
    .alterTable('inbound_messages')
    .addColumn('channel', 'text', (c) => c.notNull().defaultTo('sms'))
    .execute();
}
