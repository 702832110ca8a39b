// Carriers of any protocol: a `protocol` column and the protocol's settings as one JSON document (the carriers
// file's keys) replace the columns of SMPP settings. Every carrier stored so far spoke SMPP: its values move
// into its document as the carriers file writes them, then the old columns go.
import type { Kysely } from 'kysely';
import type { Dialect } from '../types.ts';

/** The columns of SMPP settings (0004, 0006, 0009) and the document key each moves to. */
const MOVED = {
  host: 'host',
  port: 'port',
  system_id: 'systemId',
  password: 'password',
  system_type: 'systemType',
  bind_mode: 'bindMode',
  binds: 'binds',
  window_size: 'windowSize',
  max_tps: 'maxSubmitsPerSecond',
  tls: 'tls',
  long_messages: 'longMessages',
  tls_ca: 'tlsCa',
  tls_servername: 'tlsServername',
  receipt_ids: 'receiptIds',
} as const;

const NUMBERS = new Set(['port', 'binds', 'windowSize', 'maxSubmitsPerSecond']);

function settingsOf(row: Record<string, unknown>): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  for (const [column, key] of Object.entries(MOVED)) {
    const value = row[column];
    if (value === null || value === undefined || (key === 'systemType' && value === '')) continue;
    settings[key] = key === 'tls' ? Number(value) === 1 : NUMBERS.has(key) ? Number(value) : value;
  }
  return settings;
}

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  // One column per statement: SQLite adds one column per ALTER TABLE.
  await db.schema
    .alterTable('carriers')
    .addColumn('protocol', 'text', (c) => c.notNull().defaultTo('smpp'))
    .execute();
  await db.schema
    .alterTable('carriers')
    .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  const rows = await db.selectFrom('carriers').selectAll().execute();
  for (const row of rows) {
    await db
      .updateTable('carriers')
      .set({ settings: JSON.stringify(settingsOf(row)) })
      .where('id', '=', row.id)
      .execute();
  }
  for (const column of Object.keys(MOVED)) await db.schema.alterTable('carriers').dropColumn(column).execute();
}
