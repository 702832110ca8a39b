// Sender names customers ask for from their console, waiting for the operator's approval or rejection (with a
// reason the customer sees), and the reserved names no one may ask for: seeded with banks, government and public
// services, which the operator may change (`yona admin reserved-senders`).
import type { Kysely } from 'kysely';
import type { Dialect } from '../types.ts';
import { withId } from './columns.ts';

// Patterns as domain/sender-names.ts reads them: a name compared without case or punctuation, `*` at the end for
// every name that starts so.
const SEEDED = [
  'bank*',
  'leumi*',
  'hapoalim*',
  'poalim',
  'discount*',
  'mizrahi*',
  'tefahot',
  'fibi',
  'yahav',
  'mercantile',
  'massad',
  'jerusalembank',
  'otsarhahayal',
  'isracard',
  'max',
  'cal',
  'visacal',
  'americanexpress',
  'amex',
  'paypal',
  'bit',
  'paybox',
  'gov*',
  'police',
  'mishtara',
  'idf',
  'tzahal',
  'mod',
  'misrad*',
  'ministry*',
  'taxes',
  'rashuthamisim',
  'misim',
  'btl',
  'bituachleumi',
  'nationalins',
  'mda',
  'pikudhaoref',
  'homefront',
  'oref',
  'knesset',
  'clalit',
  'maccabi',
  'meuhedet',
  'leumit',
  'israelpost',
  'doar',
  'postil',
  'elal',
  'iec',
  'hevratchashmal',
  'yona',
];

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable('sender_requests'), dialect)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('decision_reason', 'text')
    .addColumn('decided_by', 'text')
    .addColumn('requested_at', 'bigint', (c) => c.notNull())
    .addColumn('decided_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('sender_requests_account')
    .on('sender_requests')
    .columns(['account_id', 'requested_at'])
    .execute();
  await db.schema
    .createIndex('sender_requests_state')
    .on('sender_requests')
    .columns(['state', 'requested_at'])
    .execute();
  await db.schema
    .createTable('reserved_senders')
    .addColumn('pattern', 'text', (c) => c.primaryKey())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  const now = Date.now();
  await db
    .insertInto('reserved_senders')
    .values(SEEDED.map((pattern) => ({ pattern, created_at: now })))
    .execute();
}
