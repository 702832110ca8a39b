// Live nodes and their leases. A lease is taken with one conditional upsert (free, expired, or already ours),
// so two nodes racing for it cannot both win; the holder renews it, and loses it to anyone once it expires.
import type { Queryable } from './engine/db.ts';

export interface NodeRecord {
  name: string;
  roles: string[];
  host: string;
  pid: number;
  startedAt: number;
  heartbeatAt: number;
  expiresAt: number;
  /** Its latest health snapshot of its carriers (JSON), written with its heartbeat; null before one. */
  carrierHealth?: string | null;
}

export interface LeaseRecord {
  name: string;
  node: string;
  acquiredAt: number;
  expiresAt: number;
}

/** Records that a node is alive until `expiresAt` (inserted at its first beat), with its carriers' health if given. */
export async function beat(
  db: Queryable,
  node: Omit<NodeRecord, 'heartbeatAt' | 'expiresAt'>,
  now: number,
  expiresAt: number,
): Promise<void> {
  const health = node.carrierHealth === undefined ? {} : { carrier_health: node.carrierHealth };
  await db
    .insertInto('nodes')
    .values({
      name: node.name,
      roles: node.roles.join(','),
      host: node.host,
      pid: node.pid,
      started_at: node.startedAt,
      heartbeat_at: now,
      expires_at: expiresAt,
      ...health,
    })
    .onConflict((oc) =>
      oc.column('name').doUpdateSet({
        roles: node.roles.join(','),
        host: node.host,
        pid: node.pid,
        started_at: node.startedAt,
        heartbeat_at: now,
        expires_at: expiresAt,
        ...health,
      }),
    )
    .execute();
}

/** Removes a node that stops, with its leases (others may take them at once). */
export async function removeNode(db: Queryable, name: string): Promise<void> {
  await db.deleteFrom('leases').where('node', '=', name).execute();
  await db.deleteFrom('nodes').where('name', '=', name).execute();
}

/** Nodes alive at `now`, by name. */
export async function liveNodes(db: Queryable, now: number): Promise<NodeRecord[]> {
  const rows = await db.selectFrom('nodes').selectAll().where('expires_at', '>', now).orderBy('name').execute();
  return rows.map((r) => ({
    name: r.name,
    roles: r.roles ? r.roles.split(',') : [],
    host: r.host,
    pid: Number(r.pid),
    startedAt: Number(r.started_at),
    heartbeatAt: Number(r.heartbeat_at),
    expiresAt: Number(r.expires_at),
    carrierHealth: r.carrier_health,
  }));
}

/** Forgets nodes dead for longer than `graceMs` (their leases expired with them). */
export async function pruneNodes(db: Queryable, now: number, graceMs: number): Promise<void> {
  await db
    .deleteFrom('nodes')
    .where('expires_at', '<', now - graceMs)
    .execute();
}

/** Takes (or keeps) lease `name` for `node` until `expiresAt`; true when the node holds it now. */
export async function acquireLease(
  db: Queryable,
  name: string,
  node: string,
  now: number,
  expiresAt: number,
): Promise<boolean> {
  const row = await db
    .insertInto('leases')
    .values({ name, node, acquired_at: now, expires_at: expiresAt })
    .onConflict((oc) =>
      oc
        .column('name')
        .doUpdateSet((eb) => ({
          node: eb.ref('excluded.node'),
          expires_at: eb.ref('excluded.expires_at'),
          acquired_at: eb
            .case()
            .when('leases.node', '=', node)
            .then(eb.ref('leases.acquired_at'))
            .else(eb.ref('excluded.acquired_at'))
            .end(),
        }))
        .where((eb) => eb.or([eb('leases.node', '=', node), eb('leases.expires_at', '<=', now)])),
    )
    .returning('node')
    .executeTakeFirst();
  return row?.node === node;
}

/** Extends the leases `node` still holds among `names`; returns the names it still holds. */
export async function renewLeases(
  db: Queryable,
  node: string,
  names: string[],
  now: number,
  expiresAt: number,
): Promise<string[]> {
  if (names.length === 0) return [];
  const rows = await db
    .updateTable('leases')
    .set({ expires_at: expiresAt })
    .where('node', '=', node)
    .where('name', 'in', names)
    .where('expires_at', '>', now)
    .returning('name')
    .execute();
  return rows.map((r) => r.name);
}

/** Gives leases back at once (a bind closed, a share no longer wanted, a node stopping). */
export async function releaseLeases(db: Queryable, node: string, names: string[]): Promise<void> {
  if (names.length === 0) return;
  await db.deleteFrom('leases').where('node', '=', node).where('name', 'in', names).execute();
}

/** Names of the leases recorded for `node`, expired or not (what a node that stopped beating held). */
export async function leasesOf(db: Queryable, node: string): Promise<string[]> {
  const rows = await db.selectFrom('leases').select('name').where('node', '=', node).orderBy('name').execute();
  return rows.map((r) => r.name);
}

/** Who holds each of `names` at `now` (unexpired leases only): lease name to node. */
export async function holdersOf(db: Queryable, names: string[], now: number): Promise<Map<string, string>> {
  if (names.length === 0) return new Map();
  const rows = await db
    .selectFrom('leases')
    .select(['name', 'node'])
    .where('name', 'in', names)
    .where('expires_at', '>', now)
    .execute();
  return new Map(rows.map((r) => [r.name, r.node]));
}

/** Every lease not yet expired, by name. */
export async function currentLeases(db: Queryable, now: number): Promise<LeaseRecord[]> {
  const rows = await db.selectFrom('leases').selectAll().where('expires_at', '>', now).orderBy('name').execute();
  return rows.map((r) => ({
    name: r.name,
    node: r.node,
    acquiredAt: Number(r.acquired_at),
    expiresAt: Number(r.expires_at),
  }));
}

/** Messages waiting to go out, by state (scheduled, queued, submitting): the queue every dispatcher shares. */
export async function queueDepth(db: Queryable): Promise<Record<'scheduled' | 'queued' | 'submitting', number>> {
  const rows = await db
    .selectFrom('messages')
    .select(['state', (eb) => eb.fn.countAll<number>().as('n')])
    .where('state', 'in', ['scheduled', 'queued', 'submitting'])
    .groupBy('state')
    .execute();
  const depth = { scheduled: 0, queued: 0, submitting: 0 };
  for (const r of rows) depth[r.state as keyof typeof depth] = Number(r.n);
  return depth;
}
