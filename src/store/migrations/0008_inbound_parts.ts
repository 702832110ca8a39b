// Parts of concatenated inbound SMS, kept until the whole message is stored: a part is acknowledged to the
// SMSC only once it is here, so a crash between parts loses none.
import type { Kysely } from 'kysely';
import type { Dialect } from '../types.ts';
import { withId } from './columns.ts';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable('inbound_parts'), dialect)
    .addColumn('carrier', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('dest', 'text', (c) => c.notNull())
    .addColumn('ref', 'integer', (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('inbound_parts_group')
    .on('inbound_parts')
    .columns(['carrier', 'phone', 'dest', 'ref', 'total', 'seq'])
    .unique()
    .execute();
  await db.schema.createIndex('inbound_parts_time').on('inbound_parts').column('received_at').execute();
}
