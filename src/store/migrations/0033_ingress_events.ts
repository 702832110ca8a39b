// Ingress events: receipts and inbound messages a carrier posted to a webhook (/webhooks/<protocol>/<carrier>),
// stored before the webhook is answered and processed by the receipts role. The same event posted again (same
// carrier, kind and key) is stored once; processed rows stay a while so a late repeat is still recognised.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../types.ts';
import { withId } from './columns.ts';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable('ingress_events'), dialect)
    .addColumn('protocol', 'text', (c) => c.notNull())
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('event_key', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_until', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('processed_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('ingress_events_key')
    .on('ingress_events')
    .columns(['carrier', 'kind', 'event_key'])
    .unique()
    .execute();
  await db.schema
    .createIndex('ingress_events_waiting')
    .on('ingress_events')
    .column('id')
    .where(sql.ref('processed_at'), 'is', null)
    .execute();
  await db.schema.createIndex('ingress_events_processed').on('ingress_events').column('processed_at').execute();
}
