// `yona admin smpp-sessions [--json]`: the SMPP binds of customers live now over every node (account, node, bind
// type, remote address, since when, submits per second) with the receipts and inbound texts waiting for each
// account in the store, and the accounts with some waiting and no bind to take them.
import type { Config } from '../config.ts';
import { formatLong } from '../domain/dates.ts';
import { findAccountById } from '../store/accounts.ts';
import type { Store } from '../store/engine/db.ts';
import { listSmppBinds } from '../store/smpp-binds.ts';
import { countSmppOutboxWaiting } from '../store/smpp-outbox.ts';
import { UsageError } from './usage-error.ts';

const USAGE = 'yona admin smpp-sessions [--json]';

/** Prints the live SMPP binds and what waits for each account. */
export async function smppSessionsCommand(
  store: Store,
  config: Config,
  args: string[],
  out: (line: string) => void,
): Promise<void> {
  const unknown = args.find((a) => a !== '--json');
  if (unknown)
    throw new UsageError(`unknown ${unknown.startsWith('--') ? 'option' : 'argument'} ${unknown}; usage: ${USAGE}`);
  const now = Date.now();
  // A bind its node has not refreshed within the node lease time belongs to a node that died.
  const binds = await listSmppBinds(store.db, { seenSince: now - config.node.leaseMs });
  const waiting = await countSmppOutboxWaiting(store.db);
  const bound = new Set(binds.map((b) => b.accountId));
  const unbound: Array<{ account: string; receipts_waiting: number }> = [];
  for (const [accountId, count] of waiting) {
    if (bound.has(accountId) || count === 0) continue;
    const account = await findAccountById(store.db, accountId);
    unbound.push({ account: account?.username ?? `#${accountId}`, receipts_waiting: count });
  }
  unbound.sort((a, b) => a.account.localeCompare(b.account));
  const sessions = binds.map((b) => ({
    account: b.username,
    node: b.node,
    bind_type: b.bindType,
    remote_address: b.remoteAddress,
    tls: b.tls,
    since: b.since,
    submits: b.submits,
    submits_per_second: b.submitsPerSecond,
    receipts_waiting: b.receiptsWaiting,
  }));
  if (args.includes('--json')) {
    out(JSON.stringify({ sessions, waiting_without_bind: unbound }));
    return;
  }
  if (sessions.length === 0) out('no SMPP bind live on any node');
  for (const s of sessions)
    out(
      `${s.account}  ${s.bind_type}${s.tls ? ' (TLS)' : ''}  on ${s.node}  from ${s.remote_address}  since ${formatLong(s.since, config.defaultTimeZone)}  ${s.submits_per_second} submits/s  ${s.receipts_waiting} receipts waiting`,
    );
  for (const u of unbound) out(`${u.account}: ${u.receipts_waiting} receipts waiting, no receiver bind`);
}
