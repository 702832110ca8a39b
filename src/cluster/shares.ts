// A carrier's shares (a carrier's binds, shares of a trunk's call limit) spread over the nodes that run its
// role: each node holds at most its fair part (the shares divided by those nodes, rounded up) through leases,
// takes free or expired ones up to that part, and gives back what is over it, letting go of the bind first.
import { shareKey } from '../carriers/index.ts';
import type { Carrier } from '../carriers/types.ts';
import type { Role } from '../domain/roles.ts';
import type { LineLogger } from '../logger.ts';
import type { ClusterNode } from './node.ts';

type Shared = Carrier & { shares: number; useShares(indexes: number[]): Promise<void> };

/** Whether a carrier's capacity can be shared out. */
export function isShared(carrier: Carrier): carrier is Shared {
  return carrier.shares !== undefined && carrier.useShares !== undefined;
}

/** The lease name of share `index` of a carrier: `KEY:NAME#i`, KEY its protocol's share key (carriers/index.ts). */
export function shareLease(carrier: Carrier, index: number): string {
  return `${shareKey(carrier.protocol)}:${carrier.name}#${index}`;
}

/**
 * Keeps this node's part of the carrier's shares; returns once the first round ran, with what stops keeping them
 * (and gives back the leases) when the carrier is removed.
 */
export async function keepShares(
  node: ClusterNode,
  carrier: Shared,
  role: Role,
  logger: LineLogger,
): Promise<() => Promise<void>> {
  const lease = (i: number) => shareLease(carrier, i);
  let using: number[] | undefined; // undefined until the first round chose: a carrier opens every bind unless told
  let applying = Promise.resolve();
  // Shares are applied in order: a lease lost while a round runs is never opened again by a stale list.
  const apply = () => {
    const mine = [...Array(carrier.shares).keys()].filter((i) => node.holds(lease(i)));
    if (using !== undefined && mine.join() === using.join()) return applying;
    using = mine;
    applying = applying
      .then(() => carrier.useShares(mine))
      .catch((err) => logger.error({ err, carrier: carrier.name }, 'node: changing binds failed'));
    return applying;
  };
  const lost = () => void apply();
  const keeper = async () => {
    const fair = Math.ceil(carrier.shares / Math.max(1, node.nodesWith(role)));
    const mine = [...Array(carrier.shares).keys()].filter((i) => node.holds(lease(i)));
    if (mine.length > fair) {
      const extra = mine.slice(fair);
      const keep = (using = (using ?? []).filter((i) => !extra.includes(i)));
      await (applying = applying.then(() => carrier.useShares(keep)));
      await node.release(extra.map(lease));
      logger.info({ carrier: carrier.name, released: extra }, 'node: gave shares back to other nodes');
    }
    for (let i = 0, held = Math.min(mine.length, fair); i < carrier.shares && held < fair; i++) {
      if (node.holds(lease(i))) continue;
      if (await node.acquire(lease(i), lost)) held++;
    }
    await apply();
  };
  await node.keep(keeper);
  return async () => {
    node.forget(keeper);
    await applying;
    await node.release([...Array(carrier.shares).keys()].map(lease).filter((l) => node.holds(l)));
  };
}
