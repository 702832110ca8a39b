// What a node runs. Every node runs every role unless `yona serve --roles` (or YONA_ROLES) says otherwise.
import { ConfigError } from './errors.ts';

export const ROLES = ['api', 'dispatcher', 'scheduler', 'pusher', 'receipts', 'voice', 'smpp'] as const;
export type Role = (typeof ROLES)[number];

/** What each role does, for help texts and `yona admin nodes`. */
export const ROLE_MEANING: Record<Role, string> = {
  api: 'the HTTP API, the console and the public pages',
  dispatcher:
    'SMS carriers: holds SMPP binds (shared with other nodes through leases), submits, takes receipts and inbound SMS',
  scheduler: 'releases scheduled campaigns and runs birthday greetings (one leader among the nodes)',
  pusher: 'delivers push (webhook) events',
  receipts: 'matches early receipts and closes receipt windows (status 2)',
  voice: 'voice trunks: holds shares of their call limits, places calls',
  smpp: "the SMPP server for customers' binds (YONA_SMPP_PORT, YONA_SMPP_TLS_PORT): submits, receipts and inbound texts",
};

/** Parses a comma-separated role list; throws ConfigError naming the unknown role. */
export function parseRoles(text: string | undefined, where = '--roles'): Role[] {
  if (text === undefined || text.trim() === '' || text.trim() === 'all') return [...ROLES];
  const roles: Role[] = [];
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    if (!(ROLES as readonly string[]).includes(part))
      throw new ConfigError(`${where}: unknown role "${part}" (roles: ${ROLES.join(', ')})`);
    if (!roles.includes(part as Role)) roles.push(part as Role);
  }
  if (roles.length === 0) throw new ConfigError(`${where}: name at least one role (${ROLES.join(', ')})`);
  return roles;
}
