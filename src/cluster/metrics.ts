// Per-node Prometheus metrics: who this node is, what it holds, and the shared queue as it sees it. Every node
// serves its own /metrics; a Prometheus scraping all of them gets one series per node (label `node`).
import client from 'prom-client';
import type { Store } from '../store/engine/db.ts';
import { engineCounters } from '../store/engine/stats.ts';
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
  // Counters kept by the store's engine (its group commits), read at scrape time.
  const counters = engineCounters(store);
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
