// `yona admin ledger USERNAME [--json]`: every credit and money movement of an account, oldest first, with its
// reason and reference, and the balances they add up to beside the account's own.
import { formatLong } from '../domain/dates.ts';
import { formatShekels } from '../domain/money.ts';
import type { Config } from '../config.ts';
import { findAccountByUsername } from '../store/accounts.ts';
import type { Store } from '../store/engine/db.ts';
import { ledgerEntries } from '../store/ledger.ts';
import { UsageError } from './usage-error.ts';

const USAGE = 'yona admin ledger USERNAME [--json]';

/** Prints an account's ledger (one line per entry, or one JSON document with --json). */
export async function ledgerCommand(
  store: Store,
  _config: Config,
  args: string[],
  out: (line: string) => void,
): Promise<void> {
  const json = args.includes('--json');
  const rest = args.filter((a) => a !== '--json');
  const unknown = rest.find((a) => a.startsWith('--'));
  if (unknown) throw new UsageError(`unknown option ${unknown.split('=')[0]}; usage: ${USAGE}`);
  const [username, extra] = rest;
  if (!username || extra !== undefined) throw new UsageError(`usage: ${USAGE}`);
  const account = await findAccountByUsername(store.db, username);
  if (!account) throw new UsageError(`no account named "${username}"`);
  const entries = await ledgerEntries(store.db, account.id);
  const sum = { credits: 0, international: 0 };
  for (const e of entries) sum[e.currency] += e.amount;
  const balances = { credits: Number(account.credits), international_agorot: Number(account.intl_agorot) };
  if (json) {
    out(
      JSON.stringify({
        username,
        balances,
        ledger_sum: { credits: sum.credits, international_agorot: sum.international },
        entries,
      }),
    );
    return;
  }
  for (const e of entries) {
    const amount =
      e.currency === 'credits'
        ? `${e.amount > 0 ? '+' : ''}${e.amount} credits`
        : `${e.amount > 0 ? '+' : ''}${formatShekels(e.amount)} shekels`;
    const ref = e.ref_type ? ` [${e.ref_type}${e.ref_id === null ? '' : ` ${e.ref_id}`}]` : '';
    out(`${formatLong(e.created_at, account.time_zone)}  ${amount.padStart(18)}  ${e.reason}${ref}`);
  }
  out(
    `${username}: ${balances.credits} credits, ${formatShekels(balances.international_agorot)} shekels (ledger sum: ${sum.credits} credits, ${formatShekels(sum.international)} shekels)`,
  );
}
