// `yona admin accounts|suspend|resume|close-account|credit`: the operator's account commands, over the actions in
// operations/operator-accounts.ts (which the operator console calls too). A refusal exits 2 with its reason.
import type { Config } from '../config.ts';
import { formatLong } from '../domain/dates.ts';
import { formatShekels } from '../domain/money.ts';
import { runOperation } from '../operations/execute.ts';
import { listAccounts, type AccountSummary } from '../operations/operator-accounts.ts';
import { closeAccount, creditAccount, resumeAccount, suspendAccount } from '../operations/operator-changes.ts';
import type { Operation } from '../operations/types.ts';
import { findAccountByUsername } from '../store/accounts.ts';
import type { Store } from '../store/engine/db.ts';
import { operatorApp, worked } from './operator-app.ts';
import { UsageError } from './usage-error.ts';

type Out = (line: string) => void;

/** The most credits one `credit` may add or take. */
const MAX_CREDIT = 1_000_000_000_000;

// Runs an operator's change to `username` through the runner (audited); a refusal is a usage error (exit 2).
async function change<R>(
  store: Store,
  config: Config,
  username: string,
  op: Operation<any, any>,
  doc: Record<string, unknown>,
): Promise<R> {
  const account = await findAccountByUsername(store.db, username);
  if (!account) throw new UsageError(`no account named "${username}"`);
  return worked(await runOperation(operatorApp(store, config), account, op, doc, { via: 'operator' })) as R;
}

/**
 * Splits arguments into positionals and the one option `--reason` (`--reason R` or `--reason=R`; `--json` when
 * `json`): a number like -50 is a positional, not an option.
 */
function readArgs(args: string[], usage: string, o: { json?: boolean } = {}) {
  const positionals: string[] = [];
  let reason: string | undefined;
  let json = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--reason') {
      if (i + 1 >= args.length) throw new UsageError(`--reason needs a value; usage: ${usage}`);
      reason = args[++i];
    } else if (a.startsWith('--reason=')) reason = a.slice('--reason='.length);
    else if (o.json && a === '--json') json = true;
    else if (a.startsWith('-') && !/^-\d+$/.test(a))
      throw new UsageError(`unknown option ${a.split('=')[0]}; usage: ${usage}`);
    else positionals.push(a);
  }
  return { positionals, reason, json };
}

function exactly(positionals: string[], n: number, usage: string): string[] {
  if (positionals.length !== n) throw new UsageError(`usage: ${usage}`);
  return positionals;
}

function stateText(a: AccountSummary): string {
  if (a.state !== 'suspended') return a.state;
  const by = a.suspended_by === 'reseller' ? 'suspended by reseller' : 'suspended';
  return a.suspension_reason ? `${by} (${a.suspension_reason})` : by;
}

/** `yona admin accounts [--json]`: every account with its balance, state, reseller and last activity. */
export async function accountsCommand(store: Store, config: Config, args: string[], out: Out): Promise<void> {
  const usage = 'yona admin accounts [--json]';
  const { positionals, json } = readArgs(args, usage, { json: true });
  exactly(positionals, 0, usage);
  const accounts = await listAccounts(store.db);
  if (json) {
    out(
      JSON.stringify(
        accounts.map((a) => ({
          ...a,
          last_activity: a.last_activity === null ? null : new Date(a.last_activity).toISOString(),
        })),
      ),
    );
    return;
  }
  if (accounts.length === 0) {
    out('no accounts');
    return;
  }
  const rows = accounts.map((a) => [
    a.username + (a.is_reseller ? ' (reseller)' : ''),
    `${a.credits} credits, ${formatShekels(a.international_agorot)} shekels`,
    stateText(a),
    a.reseller ?? '-',
    a.last_activity === null ? 'never' : formatLong(a.last_activity, config.defaultTimeZone),
  ]);
  const header = ['ACCOUNT', 'BALANCE', 'STATE', 'RESELLER', 'LAST ACTIVITY'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const row of [header, ...rows])
    out(
      row
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    );
}

/** `yona admin suspend ACCOUNT [--reason R]`. */
export async function suspendCommand(store: Store, config: Config, args: string[], out: Out): Promise<void> {
  const usage = 'yona admin suspend ACCOUNT [--reason R]';
  const { positionals, reason } = readArgs(args, usage);
  const [username] = exactly(positionals, 1, usage);
  await change(store, config, username, suspendAccount, { reason });
  out(`${username} is suspended: its API tokens, console sign-in and sessions are refused until yona admin resume`);
}

/** `yona admin resume ACCOUNT`. */
export async function resumeCommand(store: Store, config: Config, args: string[], out: Out): Promise<void> {
  const usage = 'yona admin resume ACCOUNT';
  const [username] = exactly(readArgs(args, usage).positionals, 1, usage);
  await change(store, config, username, resumeAccount, {});
  out(`${username} is resumed`);
}

/** `yona admin close-account ACCOUNT`. */
export async function closeAccountCommand(store: Store, config: Config, args: string[], out: Out): Promise<void> {
  const usage = 'yona admin close-account ACCOUNT';
  const [username] = exactly(readArgs(args, usage).positionals, 1, usage);
  const { tokens } = await change<{ tokens: number }>(store, config, username, closeAccount, {});
  out(
    `${username} is closed: ${tokens} API token${tokens === 1 ? '' : 's'} revoked, sign-in refused; its data is kept`,
  );
}

/** `yona admin credit ACCOUNT N --reason R`: N positive adds, negative takes (never below zero). */
export async function creditCommand(store: Store, config: Config, args: string[], out: Out): Promise<void> {
  const usage = `yona admin credit ACCOUNT N --reason R (N a whole number, either sign, at most ${MAX_CREDIT} either way)`;
  const { positionals, reason } = readArgs(args, usage);
  const [username, n] = exactly(positionals, 2, usage);
  if (!/^[+-]?\d+$/.test(n) || Number(n) === 0 || Math.abs(Number(n)) > MAX_CREDIT)
    throw new UsageError(`N must be a whole number other than 0, at most ${MAX_CREDIT} either way, got "${n}"`);
  if (reason === undefined) throw new UsageError(`missing --reason; usage: ${usage}`);
  const { credits } = await change<{ credits: number }>(store, config, username, creditAccount, {
    amount: Number(n),
    reason,
  });
  out(`${username} now has ${credits} credits`);
}
