// `npm run bench -- partitions [--months 12] [--rows-per-month 100000] [--today 20000]`: PostgreSQL's monthly
// partitions with a year of history. On a fresh database: one account with `--months` past months of delivered
// messages and a day's worth today (a share with external ids, some still queued). It times today's reads
// (dlrByDate for the last hour, dlr for 100 external ids, a dispatcher claim of 500, rolled back) with the history
// in place, then removing one month both ways: dropping its partition, as retention does, against deleting its
// rows 5,000 a statement, as a table without partitions would need (here from its partition directly, so finding
// the rows costs nothing); then the same reads once the history is gone.
// One JSON line.
import { sql } from 'kysely';
import { claimDueMessages } from '../src/store/dispatch.ts';
import { openStore, type Db } from '../src/store/engine/db.ts';
import { dropExpiredMonths, ensureMonthPartitions, monthPartitions, monthStart } from '../src/store/partitions.ts';
import { reportsByDate, reportsByExternalIds } from '../src/store/reports.ts';
import { argValue, scratchDatabase } from './lib/nodes.ts';

const months = Number(argValue('months', '12'));
const perMonth = Number(argValue('rows-per-month', '100000'));
const today = Number(argValue('today', '20000'));
const ROUNDS = 200;

// Inserts `count` delivered messages spread over [from, to), every tenth with an external id; `queued` of them still queued.
async function fill(
  db: Db,
  account: number,
  campaign: number,
  from: number,
  to: number,
  count: number,
  tag: string,
  queued = 0,
): Promise<void> {
  const step = Math.max(1, Math.floor((to - from) / count));
  await sql`insert into messages (campaign_id, account_id, external_id, phone, source, text, parts, state, status, status_at, created_at, submitted_at, next_attempt_at)
    select ${campaign}, ${account}, case when g % 10 = 0 then ${tag} || g end, '9725' || (20000000 + g), 'Yona', 'Your code is 123456', 1,
      case when g <= ${queued} then 'queued' else 'done' end, case when g <= ${queued} then null else 102 end,
      case when g <= ${queued} then null else t + 5000 end, t, t + 100, 0
    from generate_series(1, ${count}::int) g, lateral (select ${from}::bigint + g * ${step}::bigint as t) at`.execute(
    db,
  );
}

async function timeReads(db: Db, account: number, now: number): Promise<Record<string, number>> {
  const externalIds = Array.from({ length: 100 }, (_, i) => `today-${(i + 1) * 10}`);
  const median = async (run: () => Promise<unknown>): Promise<number> => {
    const ms: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const t0 = performance.now();
      await run();
      ms.push(performance.now() - t0);
    }
    return Number(ms.sort((a, b) => a - b)[ROUNDS >> 1].toFixed(3));
  };
  const rollback = new Error('rollback');
  return {
    dlrByDateLastHourMs: await median(() => reportsByDate(db, account, now - 3_600_000, now, 1000)),
    dlrBy100ExternalIdsMs: await median(() =>
      reportsByExternalIds(db, account, externalIds, now - 86_400_000, now, 1000),
    ),
    claim500Ms: await median(() =>
      db
        .transaction()
        .execute(async (trx) => {
          await claimDueMessages(trx, now, now + 30_000, 500);
          throw rollback;
        })
        .catch((err) => {
          if (err !== rollback) throw err;
        }),
    ),
  };
}

const scratch = await scratchDatabase('partitions');
const store = await openStore({ databaseUrl: scratch.url, dataDir: '/tmp', pgGroupLanes: 0 });
const db = store.db;
try {
  const now = Date.now();
  const account = Number(
    (
      await sql<{
        id: number;
      }>`insert into accounts (username, name, password_hash, time_zone, created_at) values ('bench', 'bench', 'x', 'Asia/Jerusalem', 0) returning id`.execute(
        db,
      )
    ).rows[0].id,
  );
  const campaign = Number(
    (
      await sql<{
        id: number;
      }>`insert into campaigns (account_id, kind, source, state, created_at) values (${account}, 'sms', 'Yona', 'sent', 0) returning id`.execute(
        db,
      )
    ).rows[0].id,
  );
  const t0 = performance.now();
  for (let k = months; k >= 1; k--) {
    await ensureMonthPartitions(db, monthStart(now, -k), 0);
    await fill(db, account, campaign, monthStart(now, -k), monthStart(now, -k + 1), perMonth, `m${k}-`);
  }
  await fill(db, account, campaign, now - 86_400_000, now, today, 'today-', 5000);
  await sql`analyze messages`.execute(db);
  const fillSeconds = (performance.now() - t0) / 1000;

  const withHistory = await timeReads(db, account, now);

  // One month out, both ways: the oldest by dropping its partition, the next by deleting its rows.
  const [oldest, next] = await monthPartitions(db, 'messages');
  let t = performance.now();
  const dropped = await dropExpiredMonths(db, { messages: oldest.to });
  const dropMonthMs = performance.now() - t;
  if (!dropped.includes(oldest.name)) throw new Error(`${oldest.name} was not dropped`);
  t = performance.now();
  let deleted = 0;
  for (;;) {
    const r =
      await sql`delete from ${sql.table(next.name)} where id in (select id from ${sql.table(next.name)} limit 5000)`.execute(
        db,
      );
    const n = Number(r.numAffectedRows ?? 0);
    deleted += n;
    if (n === 0) break;
  }
  const deleteMonthMs = performance.now() - t;

  await dropExpiredMonths(db, { messages: monthStart(now) });
  await sql`analyze messages`.execute(db);
  const withoutHistory = await timeReads(db, account, now);

  const ratios = Object.fromEntries(
    Object.keys(withHistory).map((k) => [k, Number((withHistory[k] / withoutHistory[k]).toFixed(2))]),
  );
  console.log(
    JSON.stringify({
      bench: 'partitions',
      store: 'postgres',
      months,
      rowsPerMonth: perMonth,
      today,
      fillSeconds: Number(fillSeconds.toFixed(1)),
      withHistory,
      withoutHistory,
      historyOverEmpty: ratios,
      removeOneMonth: {
        rows: deleted,
        dropPartitionMs: Number(dropMonthMs.toFixed(1)),
        deleteRowsMs: Number(deleteMonthMs.toFixed(1)),
        ratio: Number((deleteMonthMs / dropMonthMs).toFixed(1)),
      },
    }),
  );
} finally {
  await store.close();
  await scratch.drop();
}
