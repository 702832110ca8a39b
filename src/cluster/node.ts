// This node among the nodes of one database: a heartbeat every third of the lease time, and the leases it holds
// (renewed with the heartbeat). A lease not renewed in time is treated as lost here a fifth of the lease time
// before others may take it, so what it guards (an SMPP bind, a share of a trunk's calls, leadership) is let go
// before another node can start using it. Keepers (bind shares, leadership) run after each heartbeat.
import { hostname } from 'node:os';
import type { NodeSettings } from '../config.ts';
import type { Role } from '../domain/roles.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/engine/db.ts';
import {
  acquireLease,
  beat,
  holdersOf,
  leasesOf,
  liveNodes,
  pruneNodes,
  releaseLeases,
  removeNode,
  renewLeases,
  type NodeRecord,
} from '../store/nodes.ts';

/** Something that wants leases: runs after every heartbeat. */
export type Keeper = () => Promise<void>;

interface Held {
  /** Locally, the lease counts as held until then. */
  until: number;
  lost: () => void;
}

/** How long dead nodes stay listed before they are forgotten. */
const FORGET_AFTER_MS = 3_600_000;
const GUARD_EVERY_MS = 250;

export class ClusterNode {
  readonly name: string;
  readonly roles: Role[];
  readonly leaseMs: number;
  private readonly startedAt: number;
  private readonly held = new Map<string, Held>();
  private readonly keepers: Keeper[] = [];
  private live: NodeRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  private guard: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private stopped = true;
  /** When the last heartbeat was written (0: none yet). */
  lastBeatAt = 0;
  /** Heartbeats that failed to write to the store (yona_store_errors_total{operation="heartbeat"}). */
  heartbeatFailures = 0;
  /** Nodes whose heartbeat ended since the last tick, with the leases they held, logged once the keepers ran. */
  private lost: Array<{ node: NodeRecord; leases: string[] }> = [];
  /** Reads the snapshot of this node's carriers' health each heartbeat writes (JSON); none before it is set. */
  private carrierHealth: (() => string | null) | undefined;

  constructor(
    private readonly store: Store,
    settings: NodeSettings,
    private readonly logger: Logger,
    private readonly clock: () => number = Date.now,
    private readonly host = hostname(),
  ) {
    this.name = settings.name;
    this.roles = settings.roles;
    this.leaseMs = settings.leaseMs;
    this.startedAt = clock();
  }

  /** Makes every heartbeat write `read()` as this node's carriers' health (undefined: stop writing it). */
  reportCarrierHealth(read: (() => string | null) | undefined): void {
    this.carrierHealth = read;
  }

  has(role: Role): boolean {
    return this.roles.includes(role);
  }

  /** Writes the first heartbeat (refusing a name another live process on this host uses) and starts beating. */
  async start(): Promise<void> {
    const now = this.clock();
    const same = (await liveNodes(this.store.control, now)).find((n) => n.name === this.name);
    if (same && same.pid !== process.pid && same.host === this.host && processAlive(same.pid) && this.store.shared) {
      throw new Error(
        `node name "${this.name}" is in use by process ${same.pid} on this host: give each node its own YONA_NODE_NAME`,
      );
    }
    this.stopped = false;
    await this.beat();
    this.timer = setInterval(() => void this.tick(), Math.floor(this.leaseMs / 3));
    this.guard = setInterval(() => this.expireLocally(), GUARD_EVERY_MS);
    this.timer.unref();
    this.guard.unref();
  }

  /** Registers a keeper and runs it once now. */
  async keep(keeper: Keeper): Promise<void> {
    this.keepers.push(keeper);
    await keeper().catch((err) => this.logger.error({ err }, 'node: taking leases failed'));
  }

  /** Stops running a keeper (its carrier was removed); the leases it took stay until released. */
  forget(keeper: Keeper): void {
    const at = this.keepers.indexOf(keeper);
    if (at >= 0) this.keepers.splice(at, 1);
  }

  /** Heartbeat, lease renewal and keepers; one at a time. */
  tick(): Promise<void> {
    this.ticking ??= this.runTick().finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  private async runTick(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.beat();
    } catch (err) {
      this.heartbeatFailures++;
      this.logger.error({ err }, 'node: heartbeat failed (leases are let go when they run out)');
      return;
    }
    for (const keeper of this.keepers) {
      if (this.stopped) return;
      await keeper().catch((err) => this.logger.error({ err }, 'node: taking leases failed'));
    }
    await this.reportLost().catch((err) => this.logger.error({ err }, 'node: reading what a lost node held failed'));
  }

  // docs/logs.md `node.lost`: each node whose heartbeat lease ended (it did not leave: a node that stops removes
  // itself), with the leases it held and where each is now, after this node's keepers took their part of them.
  private async reportLost(): Promise<void> {
    const lost = this.lost;
    this.lost = [];
    for (const { node, leases } of lost) {
      const holders = await holdersOf(this.store.control, leases, this.clock());
      const moved = Object.fromEntries(leases.flatMap((l) => (holders.has(l) ? [[l, holders.get(l)!]] : [])));
      this.logger.warn(
        {
          event: 'node.lost',
          lost_node: node.name,
          roles: node.roles.join(','),
          host: node.host,
          last_heartbeat: node.heartbeatAt,
          leases,
          moved,
          unclaimed: leases.filter((l) => !holders.has(l)),
        },
        'node: another node stopped beating; its leases moved',
      );
    }
  }

  private async beat(): Promise<void> {
    const now = this.clock();
    const db = this.store.control;
    const carrierHealth = this.carrierHealth?.();
    await beat(
      db,
      {
        name: this.name,
        roles: this.roles,
        host: this.host,
        pid: process.pid,
        startedAt: this.startedAt,
        ...(carrierHealth !== undefined ? { carrierHealth } : {}),
      },
      now,
      now + this.leaseMs,
    );
    const names = [...this.held.keys()];
    const renewed = new Set(await renewLeases(db, this.name, names, now, now + this.leaseMs));
    for (const name of names) {
      if (renewed.has(name)) this.held.get(name)!.until = this.localUntil(now);
      else this.lose(name, 'not renewed in time');
    }
    const before = this.live;
    this.live = await liveNodes(db, now);
    // A node gone from the live ones whose lease ran out was lost; one that stopped removed itself before then.
    for (const node of before) {
      if (node.name === this.name || node.expiresAt > now || this.live.some((n) => n.name === node.name)) continue;
      this.lost.push({ node, leases: await leasesOf(db, node.name) });
    }
    this.lastBeatAt = now;
    await pruneNodes(db, now, FORGET_AFTER_MS);
  }

  private localUntil(from: number): number {
    return from + this.leaseMs - Math.floor(this.leaseMs / 5);
  }

  /** Live nodes (as of the last heartbeat) that run `role`; this node counts when it runs it. */
  nodesWith(role: Role): number {
    const others = this.live.filter((n) => n.name !== this.name && n.roles.includes(role)).length;
    return others + (this.has(role) ? 1 : 0);
  }

  /** Takes lease `name` (free, expired or already ours); `lost` runs if it is lost later. */
  async acquire(name: string, lost: () => void): Promise<boolean> {
    if (this.stopped) return false;
    const now = this.clock();
    if (!(await acquireLease(this.store.control, name, this.name, now, now + this.leaseMs))) return false;
    this.held.set(name, { until: this.localUntil(now), lost });
    return true;
  }

  /** Gives leases back (after letting go of what they guard). */
  async release(names: string[]): Promise<void> {
    for (const name of names) this.held.delete(name);
    await releaseLeases(this.store.control, this.name, names);
  }

  holds(name: string): boolean {
    return this.held.has(name);
  }

  /** Names of the leases held now. */
  leases(): string[] {
    return [...this.held.keys()].sort();
  }

  private lose(name: string, why: string): void {
    const held = this.held.get(name);
    if (!held) return;
    this.held.delete(name);
    this.logger.warn({ lease: name, why }, 'node: lease lost');
    held.lost();
  }

  private expireLocally(): void {
    const now = this.clock();
    for (const [name, held] of [...this.held]) if (now >= held.until) this.lose(name, 'not renewed in time');
  }

  /** Stops beating and gives every lease back (call after letting go of what they guard). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearInterval(this.guard);
    await this.ticking?.catch(() => {});
    this.held.clear();
    await removeNode(this.store.control, this.name).catch((err) =>
      this.logger.error({ err }, 'node: leaving the node list failed'),
    );
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
