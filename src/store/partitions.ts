// Time partitions on PostgreSQL (migration 0019): messages, carrier message ids and push events live in one
// partition per calendar month (UTC) of their created_at, plus a default partition for rows outside every month.
// Months are created ahead, so rows land in their month; a month found missing is created with the rows the
// default partition held for it. A month is dropped whole (one DROP TABLE instead of millions of deletes) once it
// ended before its table's cutoff and holds nothing still at work: no message still scheduled, queued, being
// submitted or awaiting its receipt (for carrier ids: no such message created before the month ended, since a
// carrier id is recorded after its message), no push event still to deliver. Such a month is kept, and dropped
// at a later run. The embedded store has no partitions (both calls do nothing there); its retention deletes rows
// (store/retention.ts).
import { sql } from 'kysely';
import type { Db, Queryable } from './engine/db.ts';
import { dialectOf } from './engine/dialect.ts';
import { OPEN_MESSAGE_STATES } from './retention.ts';

export const PARTITIONED_TABLES = ['messages', 'carrier_message_ids', 'push_events'] as const;
export type PartitionedTable = (typeof PARTITIONED_TABLES)[number];

/** One month's partition: rows with from <= created_at < to (ms since the epoch). */
export interface MonthPartition {
  table: PartitionedTable;
  name: string;
  from: number;
  to: number;
}

/** The start (UTC) of the month `offset` months after the one holding `t`. */
export function monthStart(t: number, offset = 0): number {
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + offset, 1);
}

function partitionName(table: PartitionedTable, from: number): string {
  const d = new Date(from);
  return `${table}_p${d.getUTCFullYear()}_${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** A table's month partitions, oldest first (the default partition is not one of them). */
export async function monthPartitions(db: Db, table: PartitionedTable): Promise<MonthPartition[]> {
  const { rows } = await sql<{ name: string; bound: string }>`
    select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound
    from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = ${table}::regclass`.execute(db);
  const months: MonthPartition[] = [];
  for (const r of rows) {
    const m = /FROM \('?(-?\d+)'?\) TO \('?(-?\d+)'?\)/.exec(r.bound);
    if (m) months.push({ table, name: r.name, from: Number(m[1]), to: Number(m[2]) });
  }
  return months.sort((a, b) => a.from - b.from);
}

// Creates one month, moving into it what the default partition held for it (normally nothing), in one transaction.
async function createMonth(db: Db, table: PartitionedTable, from: number, to: number): Promise<string> {
  const name = partitionName(table, from);
  await db.transaction().execute(async (trx) => {
    await sql`create table ${sql.table(name)} (like ${sql.table(table)} including defaults)`.execute(trx);
    await sql`with moved as (delete from ${sql.table(`${table}_default`)} where created_at >= ${from} and created_at < ${to} returning *)
      insert into ${sql.table(name)} select * from moved`.execute(trx);
    await sql`alter table ${sql.table(table)} attach partition ${sql.table(name)} for values from (${sql.lit(from)}) to (${sql.lit(to)})`.execute(
      trx,
    );
  });
  return name;
}

/** Makes sure every partitioned table has this month and the next `monthsAhead`; returns the partitions created. */
export async function ensureMonthPartitions(db: Db, now: number, monthsAhead = 2): Promise<string[]> {
  if (dialectOf(db) !== 'postgres') return [];
  const created: string[] = [];
  for (const table of PARTITIONED_TABLES) {
    const have = new Set((await monthPartitions(db, table)).map((p) => p.from));
    for (let offset = 0; offset <= monthsAhead; offset++) {
      const from = monthStart(now, offset);
      if (!have.has(from)) created.push(await createMonth(db, table, from, monthStart(now, offset + 1)));
    }
  }
  return created;
}

// True while a month still holds work: the partition is kept.
async function stillAtWork(db: Queryable, p: MonthPartition): Promise<boolean> {
  const open = [...OPEN_MESSAGE_STATES];
  const query =
    p.table === 'messages'
      ? sql`select 1 from ${sql.table(p.name)} where state in (${sql.join(open)}) limit 1`
      : p.table === 'carrier_message_ids'
        ? sql`select 1 from messages where created_at < ${p.to} and state in (${sql.join(open)}) limit 1`
        : sql`select 1 from ${sql.table(p.name)} where state = 'pending' limit 1`;
  return (await query.execute(db)).rows.length > 0;
}

/**
 * Drops the months that ended before their table's cutoff (ms since the epoch; a table without one keeps all)
 * and hold nothing still at work; returns the partitions dropped.
 */
export async function dropExpiredMonths(db: Db, cutoffs: Partial<Record<PartitionedTable, number>>): Promise<string[]> {
  if (dialectOf(db) !== 'postgres') return [];
  const dropped: string[] = [];
  for (const table of PARTITIONED_TABLES) {
    const cutoff = cutoffs[table];
    if (cutoff === undefined) continue;
    for (const p of await monthPartitions(db, table)) {
      if (p.to > cutoff || (await stillAtWork(db, p))) continue;
      // Dropping a partition locks its table, as the check made again under that lock does (so nothing reopens
      // in between): wait for it briefly, and try again at the next run when the table stays busy.
      const gone = await db.transaction().execute(async (trx) => {
        await sql`set local lock_timeout = '2s'`.execute(trx);
        await sql`lock table ${sql.table(table)} in access exclusive mode`.execute(trx);
        if (await stillAtWork(trx, p)) return false;
        await sql`drop table ${sql.table(p.name)}`.execute(trx);
        return true;
      });
      if (gone) dropped.push(p.name);
    }
  }
  return dropped;
}
