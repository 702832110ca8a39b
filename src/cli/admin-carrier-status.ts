// `yona admin carriers --status [--json]`: how the carriers are doing now, over every node of this store. Each
// node running carriers writes its view of them (delivery/carrier-health.ts) with its heartbeat (nodes.
// carrier_health); this command, a separate process, reads the live nodes' views and sums them per carrier
// (binds up, submits per second, windows, messages held), beside what only the store knows: the messages
// queued for a retry after failing on each carrier and the due queue. docs/carriers.md "Health" explains it.
import type { Config } from '../config.ts';
import { formatEvent } from '../domain/dates.ts';
import type { CarrierHealth } from '../delivery/carrier-health.ts';
import { loadCarrierSetup } from '../delivery/carrier-setup.ts';
import { sealingKey } from '../secret-key.ts';
import { dueQueue, retryQueueByCarrier } from '../store/carrier-queue.ts';
import type { Store } from '../store/engine/db.ts';
import { liveNodes, type NodeRecord } from '../store/nodes.ts';

type Out = (line: string) => void;

/** One carrier on one node, as the JSON output gives it. */
interface NodeFigures {
  node: string;
  binds_up: number;
  binds_held: number;
  submits_per_second: number;
  submits_accepted: number;
  submits_refused: number;
  window_in_use: number;
  window_size: number;
  throttled: boolean;
  throttled_since: number | null;
  paced: boolean;
  down_since: number | null;
  last_error: { text: string; at: number } | null;
  held: number;
  held_oldest_accepted_at: number | null;
}

/** One carrier over every node. */
interface CarrierFigures extends Omit<NodeFigures, 'node' | 'held_oldest_accepted_at' | 'down_since'> {
  name: string;
  protocol: string | null;
  configured: boolean;
  binds_wanted: number | null;
  down: boolean;
  /** held (on every node) + retry (in the store). */
  queue_length: number;
  queue_retry: number;
  oldest_message_age_ms: number | null;
  nodes: NodeFigures[];
}

interface Snapshot {
  at: number;
  carriers: CarrierHealth[];
}

function readSnapshot(node: NodeRecord): Snapshot | undefined {
  if (!node.carrierHealth) return undefined;
  try {
    const parsed = JSON.parse(node.carrierHealth) as Snapshot;
    return Array.isArray(parsed.carriers) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function nodeFigures(node: string, r: CarrierHealth): NodeFigures {
  return {
    node,
    binds_up: r.bindsUp,
    binds_held: r.bindsHeld,
    submits_per_second: r.submitsPerSecond,
    submits_accepted: r.submitsAccepted,
    submits_refused: r.submitsRefused,
    window_in_use: r.windowInUse,
    window_size: r.windowSize,
    throttled: r.throttled,
    throttled_since: r.throttledSince ?? null,
    paced: r.paced,
    down_since: r.downSince ?? null,
    last_error: r.lastError ?? null,
    held: r.held,
    held_oldest_accepted_at: r.heldOldestAcceptedAt ?? null,
  };
}

const sum = (figures: NodeFigures[], pick: (f: NodeFigures) => number) => figures.reduce((n, f) => n + pick(f), 0);
const earliest = (values: Array<number | null | undefined>) => {
  const known = values.filter((v): v is number => typeof v === 'number');
  return known.length ? Math.min(...known) : null;
};

/** Every node's figures of the carriers and the store's queues, as the JSON output gives them. */
export async function carrierStatus(store: Store, config: Config, now = Date.now()) {
  const setup = await loadCarrierSetup(store.db, config.carriersFile, () => sealingKey(config));
  const nodes = await liveNodes(store.db, now);
  const retries = await retryQueueByCarrier(store.db);
  const due = await dueQueue(store.db, now);
  const reported = nodes.map((n) => ({ node: n, snapshot: readSnapshot(n) }));
  const names = new Set([
    ...setup.carriers.map((c) => c.name),
    ...reported.flatMap((r) => r.snapshot?.carriers.map((c) => c.carrier) ?? []),
    ...retries.map((r) => r.carrier),
  ]);
  const carriers: CarrierFigures[] = [...names].map((name) => {
    const own = reported.flatMap(({ node, snapshot }) =>
      (snapshot?.carriers ?? []).filter((c) => c.carrier === name).map((c) => ({ node: node.name, c })),
    );
    const perNode = own.map(({ node, c }) => nodeFigures(node, c));
    const retry = retries.find((r) => r.carrier === name);
    const held = sum(perNode, (f) => f.held);
    const oldest = earliest([...perNode.map((f) => f.held_oldest_accepted_at), retry?.oldestAcceptedAt]);
    const lastError = perNode
      .map((f) => f.last_error)
      .filter((e): e is { text: string; at: number } => e !== null)
      .sort((a, b) => b.at - a.at)[0];
    const configured = setup.carriers.find((c) => c.name === name);
    const bindsUp = sum(perNode, (f) => f.binds_up);
    return {
      name,
      protocol: configured ? (configured.protocol ?? 'smpp') : (own[0]?.c.protocol ?? null),
      configured: configured !== undefined,
      binds_up: bindsUp,
      binds_held: sum(perNode, (f) => f.binds_held),
      binds_wanted: own.length ? Math.max(...own.map(({ c }) => c.bindsWanted)) : null,
      submits_per_second: Math.round(sum(perNode, (f) => f.submits_per_second) * 10) / 10,
      submits_accepted: sum(perNode, (f) => f.submits_accepted),
      submits_refused: sum(perNode, (f) => f.submits_refused),
      window_in_use: sum(perNode, (f) => f.window_in_use),
      window_size: sum(perNode, (f) => f.window_size),
      throttled: perNode.some((f) => f.throttled),
      throttled_since: earliest(perNode.map((f) => f.throttled_since)),
      paced: perNode.some((f) => f.paced),
      down: own.length > 0 && bindsUp === 0,
      last_error: lastError ?? null,
      held,
      queue_length: held + (retry?.messages ?? 0),
      queue_retry: retry?.messages ?? 0,
      oldest_message_age_ms: oldest === null ? null : Math.max(0, now - oldest),
      nodes: perNode,
    };
  });
  return {
    at: now,
    reported: reported.some((r) => r.snapshot !== undefined),
    nodes: reported.map(({ node, snapshot }) => ({
      name: node.name,
      roles: node.roles,
      heartbeat_at: node.heartbeatAt,
      reported_at: snapshot?.at ?? null,
    })),
    carriers,
    due_queue: {
      messages: due.messages,
      oldest_age_ms: due.oldestDueAt === undefined ? null : Math.max(0, now - due.oldestDueAt),
    },
  };
}

/** A duration for a person: 850 ms, 12 s, 4 min, 3 h. */
export function humanDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 3_600_000)} h`;
}

// Columns padded to their widest cell.
function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i])))
      .join('  ')
      .trimEnd(),
  );
}

type Figures = Omit<NodeFigures, 'node' | 'held_oldest_accepted_at' | 'down_since'> & { binds_wanted?: number | null };

function row(label: string, node: string, f: Figures, queue: string, oldest: string, now: number, zone: string) {
  const throttled = f.throttled ? `yes, ${humanDuration(now - (f.throttled_since ?? now))}` : f.paced ? 'paced' : 'no';
  const error = f.last_error
    ? `${f.last_error.text} (${formatEvent(f.last_error.at, zone)}, ${humanDuration(now - f.last_error.at)} ago)`
    : '-';
  const wanted = f.binds_wanted === undefined ? f.binds_held : (f.binds_wanted ?? '?');
  return [
    label,
    node,
    `${f.binds_up}/${wanted}`,
    String(f.submits_per_second),
    `${f.window_in_use}/${f.window_size}`,
    throttled,
    queue,
    oldest,
    error,
  ];
}

/** Prints the carriers' status as a table, or as one JSON document with `--json`. */
export async function carrierStatusCommand(store: Store, config: Config, json: boolean, out: Out): Promise<void> {
  const status = await carrierStatus(store, config);
  if (json) {
    out(JSON.stringify(status));
    return;
  }
  const { at: now } = status;
  const zone = config.defaultTimeZone;
  if (!status.reported)
    out(
      status.nodes.length === 0
        ? 'no running node: no node of this store has beaten within its lease time, so no carrier health is known (is yona serve running?)'
        : `no running node has reported its carriers' health yet (live nodes: ${status.nodes.map((n) => n.name).join(', ')}); binds and rates below are unknown`,
    );
  const several = status.nodes.filter((n) => n.reported_at !== null).length > 1;
  const rows = [['CARRIER', 'NODE', 'BINDS', 'SUBMITS/S', 'WINDOW', 'THROTTLED', 'QUEUE', 'OLDEST', 'LAST ERROR']];
  for (const c of status.carriers) {
    const oldest = c.oldest_message_age_ms === null ? '-' : humanDuration(c.oldest_message_age_ms);
    const queue = c.queue_retry > 0 ? `${c.queue_length} (${c.queue_retry} retry)` : String(c.queue_length);
    if (c.nodes.length === 0) {
      rows.push([c.name, '-', '?', '-', '-', '-', queue, oldest, c.configured ? 'not run by any live node' : '-']);
      continue;
    }
    rows.push(row(c.name, several ? 'all' : c.nodes[0].node, c, queue, oldest, now, zone));
    if (!several) continue;
    for (const n of c.nodes) {
      const heldAge = n.held_oldest_accepted_at === null ? '-' : humanDuration(now - n.held_oldest_accepted_at);
      rows.push(row('', n.node, n, `${n.held} held`, heldAge, now, zone));
    }
  }
  if (status.carriers.length > 0) for (const line of table(rows)) out(line);
  else out('no carrier configured or reported');
  const due = status.due_queue;
  out(
    `due queue: ${due.messages} message${due.messages === 1 ? '' : 's'} due${due.oldest_age_ms === null ? '' : `, the oldest due for ${humanDuration(due.oldest_age_ms)}`}`,
  );
  for (const n of status.nodes)
    out(
      `node ${n.name}: ${n.reported_at === null ? 'has not reported its carriers' : `reported ${humanDuration(Math.max(0, now - n.reported_at))} ago`}`,
    );
}
