// On PostgreSQL, the tables that grow with traffic become partitioned by the month (UTC) of their created_at:
// messages, carrier message ids (how receipts find their message) and push events (delivery status events and
// the other pushes). Each table gets a partition per month from its oldest row to two months ahead, and a
// default partition for anything outside them; store/partitions.ts keeps months created ahead and drops those
// past retention. A partitioned table's primary key and unique indexes must hold created_at, so:
// - messages and push events are keyed by (id, created_at); ids still come from their sequences;
// - carrier message ids are keyed by (carrier_message_id, carrier, created_at), the id first: a batch's lookup by
//   one carrier and many ids must walk the index by id, whatever a young partition's statistics say (led by the
//   carrier, a lookup planned before the month's first ANALYZE read every row of that carrier); a carrier id
//   given again replaces the old row on insert (store/dispatch.ts);
// - the unsubscribe code index stops being unique: a code is 96 random bits, so it never was the index that
//   kept codes apart.
// Rows are copied into the new tables: a one-time cost of the upgrade, proportional to the data kept. The months'
// names and bounds are written out here rather than taken from store/partitions.ts: a migration must not change
// when that code does.
// The embedded store keeps its simple tables.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../types.ts';

const TABLES: { table: string; key: string }[] = [
  { table: 'messages', key: 'id, created_at' },
  { table: 'carrier_message_ids', key: 'carrier_message_id, carrier, created_at' },
  { table: 'push_events', key: 'id, created_at' },
];
const MONTHS_AHEAD = 2;

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  for (const { table, key } of TABLES) await partition(db, table, key);
}

async function partition(db: Kysely<any>, table: string, key: string): Promise<void> {
  const old = `${table}_unpartitioned`;
  await sql`alter table ${sql.table(table)} rename to ${sql.table(old)}`.execute(db);
  const indexes = await sql<{ name: string; def: string }>`
    select i.relname as name, pg_get_indexdef(i.oid) as def
    from pg_index x join pg_class i on i.oid = x.indexrelid
    where x.indrelid = ${old}::regclass and not x.indisprimary`.execute(db);
  const foreignKeys = await sql<{ name: string; def: string }>`
    select conname as name, pg_get_constraintdef(oid) as def from pg_constraint
    where conrelid = ${old}::regclass and contype = 'f'`.execute(db);
  const sequences = await sql<{ seq: string; col: string }>`
    select s.relname as seq, a.attname as col from pg_depend d
    join pg_class s on s.oid = d.objid and s.relkind = 'S'
    join pg_attribute a on a.attrelid = d.refobjid and a.attnum = d.refobjsubid
    where d.refobjid = ${old}::regclass and d.deptype = 'a'`.execute(db);

  await sql`create table ${sql.table(table)} (like ${sql.table(old)} including defaults) partition by range (created_at)`.execute(
    db,
  );
  await sql`create table ${sql.table(`${table}_default`)} partition of ${sql.table(table)} default`.execute(db);
  const span = await sql<{ oldest: number | null }>`select min(created_at) as oldest from ${sql.table(old)}`.execute(
    db,
  );
  const now = new Date();
  const last = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + MONTHS_AHEAD, 1);
  const oldest = span.rows[0]?.oldest == null ? now : new Date(Math.min(Number(span.rows[0].oldest), now.getTime()));
  for (let m = Date.UTC(oldest.getUTCFullYear(), oldest.getUTCMonth(), 1); m <= last; ) {
    const start = new Date(m);
    const next = Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1);
    const name = `${table}_p${start.getUTCFullYear()}_${String(start.getUTCMonth() + 1).padStart(2, '0')}`;
    await sql`create table ${sql.table(name)} partition of ${sql.table(table)} for values from (${sql.lit(m)}) to (${sql.lit(next)})`.execute(
      db,
    );
    m = next;
  }
  await sql`insert into ${sql.table(table)} select * from ${sql.table(old)}`.execute(db);
  for (const s of sequences.rows) {
    await sql`alter sequence ${sql.table(s.seq)} owned by none`.execute(db);
  }
  await sql`drop table ${sql.table(old)}`.execute(db);
  for (const s of sequences.rows) {
    await sql`alter sequence ${sql.table(s.seq)} owned by ${sql.ref(`${table}.${s.col}`)}`.execute(db);
  }
  await sql.raw(`alter table ${table} add constraint ${table}_pkey primary key (${key})`).execute(db);
  for (const index of indexes.rows) {
    const def = index.def
      .replace(/^CREATE UNIQUE INDEX/, 'CREATE INDEX')
      .replace(/ ON (\S+\.)?\S+ USING /, ` ON ${table} USING `);
    await sql.raw(def).execute(db);
  }
  for (const fk of foreignKeys.rows) {
    await sql.raw(`alter table ${table} add constraint ${fk.name} ${fk.def}`).execute(db);
  }
}
