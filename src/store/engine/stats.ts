// The counters the store's engine keeps for metrics: the embedded store's group commit (group-commit.ts) or the
// PostgreSQL send groups (pg-group-commit.ts), as (name, help, read) for the node's /metrics.
import type { Store } from './db.ts';
import { groupCommitStats } from './group-commit.ts';

/** A counter the engine keeps: its metric name, its help text and how to read it. */
export type EngineCounter = [name: string, help: string, read: () => number];

/** The engine's counters for this store (none on PostgreSQL without send groups). */
export function engineCounters(store: Store): EngineCounter[] {
  const groups = store.sendGroups?.stats;
  return store.dialect === 'sqlite'
    ? [
        [
          'yona_sqlite_transactions_total',
          'Transactions run on the embedded store (sharing commits when group commit is on)',
          () => groupCommitStats.transactions,
        ],
        [
          'yona_sqlite_commits_total',
          "Commits of the embedded store's write groups (over transactions: transactions per commit)",
          () => groupCommitStats.commits,
        ],
        [
          'yona_sqlite_statements_total',
          "Statements run on the embedded store, savepoints and the groups' BEGIN and COMMIT included",
          () => groupCommitStats.statements,
        ],
      ]
    : groups
      ? [
          [
            'yona_pg_send_groups_total',
            'PostgreSQL transactions committed for groups of API sends',
            () => groups.groups,
          ],
          [
            'yona_pg_grouped_sends_total',
            'API sends committed in those groups (over groups: sends per commit)',
            () => groups.sends,
          ],
          [
            'yona_pg_send_group_retries_total',
            "Groups rolled back and their sends run again (a combined debit found too little: that account's sends one by one, the others as a group; a send failed after writing: all one by one)",
            () => groups.fallbacks,
          ],
        ]
      : [];
}
