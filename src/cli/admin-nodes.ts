// `yona admin nodes [--json]`: the live nodes of this database, their roles, when each last beat, and what each
// holds (SMPP binds, shares of trunks' calls, leadership); leases of nodes no longer alive are listed as free
// once they run out.
import type { Config } from '../config.ts';
import { formatLong } from '../domain/dates.ts';
import type { Store } from '../store/engine/db.ts';
import { currentLeases, liveNodes } from '../store/nodes.ts';
import { UsageError } from './usage-error.ts';

const USAGE = 'yona admin nodes [--json]';

/** Prints the live nodes with what each holds. */
export async function nodesCommand(
  store: Store,
  config: Config,
  args: string[],
  out: (line: string) => void,
): Promise<void> {
  const unknown = args.find((a) => a !== '--json');
  if (unknown)
    throw new UsageError(`unknown ${unknown.startsWith('--') ? 'option' : 'argument'} ${unknown}; usage: ${USAGE}`);
  const now = Date.now();
  const [nodes, leases] = [await liveNodes(store.db, now), await currentLeases(store.db, now)];
  // Ages and times left as of the reading's end: a lease renewed while the reads ran must not seem to outlast its lease time.
  const shownAt = Date.now();
  const held = (node: string) => leases.filter((l) => l.node === node).map((l) => l.name);
  const listed = nodes.map((n) => ({
    name: n.name,
    roles: n.roles,
    host: n.host,
    pid: n.pid,
    started_at: n.startedAt,
    heartbeat_at: n.heartbeatAt,
    heartbeat_age_ms: shownAt - n.heartbeatAt,
    holds: held(n.name),
  }));
  if (args.includes('--json')) {
    out(
      JSON.stringify({
        nodes: listed,
        leases: leases.map((l) => ({ name: l.name, node: l.node, expires_in_ms: l.expiresAt - shownAt })),
      }),
    );
    return;
  }
  if (listed.length === 0) out('no live node (none has beaten within its lease time)');
  for (const n of listed) {
    out(
      `${n.name}  ${n.host} pid ${n.pid}  roles ${n.roles.join(',')}  up since ${formatLong(n.started_at, config.defaultTimeZone)}  last beat ${Math.round(n.heartbeat_age_ms / 100) / 10} s ago`,
    );
    out(`  holds: ${n.holds.length ? n.holds.join(', ') : 'nothing'}`);
  }
  const orphaned = leases.filter((l) => !nodes.some((n) => n.name === l.node));
  for (const l of orphaned)
    out(
      `${l.name}: held by ${l.node} (not beating), free in ${Math.max(0, Math.ceil((l.expiresAt - shownAt) / 1000))} s`,
    );
}
