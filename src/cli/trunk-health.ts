// What the running `yona serve` processes of this store say of their voice trunks: the result of each trunk's
// last OPTIONS check, read from their loopback `/healthz?role=voice` (the store keeps no such state: it is each
// node's own view of its trunks). `yona admin carriers` prints it under the configured carriers.
import { resolve } from 'node:path';
import type { TrunkHealth } from '../carriers/types.ts';
import type { Config } from '../config.ts';
import { formatIso } from '../domain/dates.ts';
import { runningServers, withoutPassword, type RunningServer } from './serve-registry.ts';

const ASK_TIMEOUT_MS = 1500;

/** The running servers whose store is the one `config` names. */
function serversOfStore(config: Config, servers: RunningServer[]): RunningServer[] {
  if (config.databaseUrl) {
    const database = withoutPassword(config.databaseUrl);
    return servers.filter((s) => s.database === database);
  }
  const dir = resolve(config.dataDir);
  return servers.filter((s) => !s.database && s.dataDir !== undefined && resolve(s.dataDir) === dir);
}

/** One line for a trunk's last check, in the operator's zone. */
export function describeTrunk(name: string, node: string, h: TrunkHealth, timeZone: string): string {
  const when = h.checkedAt === undefined ? '' : ` at ${formatIso(h.checkedAt, timeZone)}`;
  if (h.up === undefined) return `trunk ${name} on node ${node}: OPTIONS not answered yet`;
  if (h.up) return `trunk ${name} on node ${node}: up, OPTIONS answered ${h.sipStatus} in ${h.rttMs} ms${when}`;
  const why = h.sipStatus !== undefined ? `OPTIONS answered ${h.sipStatus}` : (h.error ?? 'no answer');
  return `trunk ${name} on node ${node}: down, ${why}${when}`;
}

/** Lines for every trunk of every running server of this store; a server that does not answer says so. */
export async function trunkHealthLines(config: Config, servers: RunningServer[] = runningServers()): Promise<string[]> {
  const lines: string[] = [];
  for (const server of serversOfStore(config, servers)) {
    try {
      const res = await fetch(`${server.httpUrl}/healthz?role=voice`, { signal: AbortSignal.timeout(ASK_TIMEOUT_MS) });
      if (res.status === 404) continue; // this node runs no voice role
      const body = (await res.json()) as { node?: string; trunks?: Record<string, TrunkHealth> };
      for (const [name, health] of Object.entries(body.trunks ?? {}))
        lines.push(describeTrunk(name, body.node ?? `pid ${server.pid}`, health, config.defaultTimeZone));
    } catch (err) {
      lines.push(`yona serve pid ${server.pid} did not say how its trunks are (${(err as Error).message})`);
    }
  }
  return lines;
}
