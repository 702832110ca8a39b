// Per-node Prometheus metrics: who this node is, what it holds, and the shared queue as it sees it. Every node
// serves its own /metrics; a Prometheus scraping all of them gets one series per node (label `node`).
import client from 'prom-client';
import type { Store } from '../store/engine/db.ts';
import { groupCommitStats } from '../store/engine/group-commit.ts';
import { queueDepth } from '../store/nodes.ts';
import type { ClusterNode } from './node.ts';

/** Registers the node's gauges on `registry` (read at scrape time). */
export function registerNodeMetrics(registry: client.Registry, node: ClusterNode, store: Store): void {
  const labels = { node: node.name };
  new client.Gauge({
    name: 'yona_node_info',
    help: 'This node: its name and roles (value 1)',
    labelNames: ['node', 'roles'],
    registers: [registry],
    collect() {
      this.set({ ...labels, roles: node.roles.join(',') }, 1);
    },
  });
  new client.Gauge({
    name: 'yona_node_leases_held',
    help: 'Leases this node holds, by kind (bind, calls, leader) and what they name',
    labelNames: ['node', 'kind', 'lease'],
    registers: [registry],
    collect() {
      this.reset();
      for (const lease of node.leases())
        this.set({ ...labels, kind: lease.split(':')[0], lease: lease.slice(lease.indexOf(':') + 1) }, 1);
    },
  });
  new client.Gauge({
    name: 'yona_node_heartbeat_age_seconds',
    help: 'Seconds since this node last wrote its heartbeat',
    labelNames: ['node'],
    registers: [registry],
    collect() {
      this.set(labels, node.lastBeatAt === 0 ? -1 : (Date.now() - node.lastBeatAt) / 1000);
    },
  });
  new client.Counter({
    name: 'yona_store_errors_total',
    help: 'Store operations that failed on this node, by operation (heartbeat: the write every third of the node lease)',
    labelNames: ['node', 'operation'],
    registers: [registry],
    collect() {
      this.reset();
      this.inc({ ...labels, operation: 'heartbeat' }, node.heartbeatFailures);
    },
  });
  // Counters kept by the group commits (store/engine/group-commit.ts, store/engine/pg-group-commit.ts), read at scrape time.
  const groups = store.sendGroups?.stats;
  const counters: Array<[name: string, help: string, read: () => number]> =
    store.dialect === 'sqlite'
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
  for (const [name, help, read] of counters)
    new client.Counter({
      name,
      help,
      labelNames: ['node'],
      registers: [registry],
      collect() {
        this.reset();
        this.inc(labels, read());
      },
    });
  new client.Gauge({
    name: 'yona_queue_depth',
    help: 'Messages scheduled, queued and being submitted, over all nodes',
    labelNames: ['node', 'state'],
    registers: [registry],
    async collect() {
      const depth = await queueDepth(store.db);
      for (const [state, n] of Object.entries(depth)) this.set({ ...labels, state }, n);
    },
  });
}
