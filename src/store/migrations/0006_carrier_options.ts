// Per-carrier options: how long messages go out (udh parts or message_payload), and TLS trust (a private CA
// bundle's path, the name the certificate is checked against).
import type { Kysely } from 'kysely';
import type { Dialect } from '../types.ts';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  // One column per statement: SQLite adds one column per ALTER TABLE.
  await db.schema
    .alterTable('carriers')
    .addColumn('long_messages', 'text', (c) => c.notNull().defaultTo('udh'))
    .execute();
  await db.schema.alterTable('carriers').addColumn('tls_ca', 'text').execute();
  await db.schema.alterTable('carriers').addColumn('tls_servername', 'text').execute();
}
