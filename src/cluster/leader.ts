// Work one node at a time does (releasing scheduled campaigns, birthday greetings): held by the node whose lease
// `leader:NAME` it is; another takes over once a dead leader's lease runs out. The work itself stays safe if two
// ever overlapped (guarded updates), so leadership saves duplicate effort rather than guarding correctness.
import type { Logger } from '../logger.ts';
import type { Component, ComponentHost } from '../component.ts';
import type { ClusterNode } from './node.ts';

/** Runs `inner` only while this node leads `name`. */
export function ledComponent(name: string, inner: Component[], logger: Logger): Component & { leading(): boolean } {
  let leading = false;
  let changing = Promise.resolve();
  let service: ComponentHost | undefined;
  const lease = `leader:${name}`;
  const follow = (why = 'lease lost') => {
    changing = changing.then(async () => {
      if (!leading) return;
      leading = false;
      logger.info({ role: name, why }, 'node: no longer the leader');
      for (const c of [...inner].reverse())
        await c.stop().catch((err) => logger.error({ err }, `stopping ${c.name} failed`));
    });
  };
  const lead = () => {
    changing = changing.then(async () => {
      if (leading || !service) return;
      leading = true;
      logger.info({ role: name }, 'node: leading');
      for (const c of inner) await c.start(service);
    });
    return changing;
  };
  return {
    name: `${name} (leader)`,
    leading: () => leading,
    routes: undefined,
    async start(s) {
      service = s;
      const node: ClusterNode = s.node;
      await node.keep(async () => {
        if (node.holds(lease)) return;
        if (await node.acquire(lease, () => follow())) await lead();
      });
    },
    async stop() {
      follow('stopping');
      await changing;
      service = undefined;
    },
  };
}
