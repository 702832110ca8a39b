// Filling a bench store with traffic straight through SQL (INSERT ... SELECT over a series), for the console
// benches: a sent campaign to hang the messages on, the series of row numbers, a phone from a row number, and the
// statistics a live store would have. Each bench writes its own messages' columns.
import { sql, type RawBuilder } from 'kysely';
import type { Store } from '../../src/store/engine/db.ts';

/** A sent campaign of `recipients` messages, accepted at `at` and finished at `finishedAt`; answers its id. */
export async function sentCampaign(
  db: Store['db'],
  values: { accountId: number; name: string; recipients: number; at: number; finishedAt: number },
): Promise<number> {
  const campaign = await db
    .insertInto('campaigns')
    .values({
      account_id: values.accountId,
      name: values.name,
      kind: 'sms',
      source: 'Yona',
      state: 'sent',
      scheduled_at: null,
      recipients: values.recipients,
      credits_charged: values.recipients,
      agorot_charged: 0,
      options: '{}',
      created_at: values.at,
      released_at: values.at,
      finished_at: values.finishedAt,
      cancelled_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(campaign.id);
}

/** The rows 0 .. n - 1 as a subquery of one column `i`. */
export function seriesOf(dialect: Store['dialect'], n: number): RawBuilder<unknown> {
  return dialect === 'postgres'
    ? sql`select i from generate_series(cast(0 as bigint), ${sql.lit(n - 1)}) as s(i)`
    : sql`select i from (with recursive s(i) as (select 0 union all select i + 1 from s where i < ${sql.lit(n - 1)}) select i from s)`;
}

/** An Israeli mobile number's last eight digits from the row number `k`, spread over the range. */
export function eightDigitsOf(dialect: Store['dialect'], k: RawBuilder<unknown>): RawBuilder<unknown> {
  const eight = sql`cast(((${k} * 7919) % 100000000) as text)`;
  return dialect === 'postgres' ? sql`lpad(${eight}, 8, '0')` : sql`substr('0000000' || ${eight}, -8, 8)`;
}

/** What autovacuum does on a live store: statistics, and the visibility map index-only scans rely on. */
export async function analyzeMessages(db: Store['db'], dialect: Store['dialect']): Promise<void> {
  if (dialect === 'postgres') await sql`vacuum analyze messages`.execute(db);
  else await sql`analyze`.execute(db);
}
