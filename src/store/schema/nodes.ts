// Tables of several nodes on one database: live nodes and the leases they hold.

export interface NodeTable {
  /** YONA_NODE_NAME, unique among the nodes of one database. */
  name: string;
  /** Comma-separated roles the node runs. */
  roles: string;
  host: string;
  pid: number;
  started_at: number;
  heartbeat_at: number;
  /** The node counts as alive until then (heartbeat + lease time). */
  expires_at: number;
  /** The node's latest health snapshot of its carriers (JSON, delivery/carrier-health.ts); null before one. */
  carrier_health: string | null;
}

export interface LeaseTable {
  /** What is held: `bind:CARRIER#SLOT`, `calls:TRUNK#SHARE`, `leader:scheduler`, ... */
  name: string;
  node: string;
  acquired_at: number;
  /** Free for any node to take once past (the holder renews it every third of the lease time). */
  expires_at: number;
}

export interface NodesTables {
  nodes: NodeTable;
  leases: LeaseTable;
}
