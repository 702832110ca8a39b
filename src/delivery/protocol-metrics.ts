// Metrics and health the carrier protocols contribute through their registry entries (a SIP trunk's calls and
// OPTIONS checks, say): each protocol's hooks are given this node's carriers of that protocol. This file names no
// protocol.
import type { Registry } from 'prom-client';
import { carrierRole, protocols } from '../carriers/index.ts';
import type { Carrier } from '../carriers/types.ts';
import type { Role } from '../domain/roles.ts';

// This node's carriers of one protocol.
function carriersOf(carriers: Map<string, Carrier> | undefined, protocol: string): Carrier[] {
  return [...(carriers?.values() ?? [])].filter((c) => c.protocol === protocol);
}

/** What the protocols run by `role` add to its /healthz report, from this node's carriers. */
export function protocolHealth(role: Role, carriers: Map<string, Carrier> | undefined): Record<string, unknown> {
  const details: Record<string, unknown> = {};
  for (const [name, protocol] of protocols())
    if (protocol.health && carrierRole(name) === role)
      Object.assign(details, protocol.health(carriersOf(carriers, name)));
  return details;
}

/** Registers every protocol's own metrics on `registry`; `carriers` gives this node's carriers when it runs them. */
export function registerProtocolMetrics(
  registry: Registry,
  node: string,
  carriers: () => Map<string, Carrier> | undefined,
): void {
  for (const [name, protocol] of protocols()) protocol.metrics?.(registry, node, () => carriersOf(carriers(), name));
}
