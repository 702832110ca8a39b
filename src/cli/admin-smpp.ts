// `yona admin smpp-password ACCOUNT PASSWORD [--tls-only]` and `yona admin smpp-limits ACCOUNT [--binds N]
// [--submits-per-second N] [--window N]`: an account's access to the SMPP server, through the setSmppPassword and
// setSmppLimits operations.
import { parseArgs } from 'node:util';
import type { Config } from '../config.ts';
import { runOperation } from '../operations/execute.ts';
import { setSmppLimits, setSmppPassword, SMPP_PASSWORD_MAX } from '../operations/smpp-access.ts';
import { findAccountByUsername, type Account } from '../store/accounts.ts';
import type { Store } from '../store/engine/db.ts';
import { operatorApp, worked } from './operator-app.ts';
import { UsageError } from './usage-error.ts';

const PASSWORD_USAGE = 'usage: yona admin smpp-password ACCOUNT PASSWORD [--tls-only]';
const LIMITS_USAGE = 'usage: yona admin smpp-limits ACCOUNT [--binds N] [--submits-per-second N] [--window N]';

function parse(args: string[], usage: string, options: Record<string, { type: 'string' | 'boolean' }>) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n${usage}`);
  }
}

async function accountNamed(store: Store, username: string | undefined, usage: string): Promise<Account> {
  if (!username) throw new UsageError(usage);
  const account = await findAccountByUsername(store.db, username);
  if (!account) throw new UsageError(`no account named "${username}"`);
  return account;
}

export async function smppPasswordCommand(
  store: Store,
  config: Config,
  args: string[],
  out: (line: string) => void,
): Promise<void> {
  const parsed = parse(args, PASSWORD_USAGE, { 'tls-only': { type: 'boolean' } });
  const [username, password, extra] = parsed.positionals;
  if (password === undefined || extra !== undefined) throw new UsageError(PASSWORD_USAGE);
  if (password.length === 0 || password.length > SMPP_PASSWORD_MAX)
    throw new UsageError(`an SMPP password has 1 to ${SMPP_PASSWORD_MAX} characters (SMPP v3.4)`);
  const account = await accountNamed(store, username, PASSWORD_USAGE);
  const tlsOnly = parsed.values['tls-only'] === true;
  worked(
    await runOperation(
      operatorApp(store, config),
      account,
      setSmppPassword,
      { password, tlsOnly },
      { via: 'operator' },
    ),
  );
  out(`the SMPP password of ${account.username} is set${tlsOnly ? '; it binds over TLS only' : ''}`);
}

function count(value: string | boolean | undefined, flag: string): number | undefined {
  if (value === undefined || typeof value === 'boolean') return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${flag} takes a whole number, got "${value}"`);
  return Number(value);
}

export async function smppLimitsCommand(
  store: Store,
  config: Config,
  args: string[],
  out: (line: string) => void,
): Promise<void> {
  const parsed = parse(args, LIMITS_USAGE, {
    binds: { type: 'string' },
    'submits-per-second': { type: 'string' },
    window: { type: 'string' },
  });
  const [username, extra] = parsed.positionals;
  if (extra !== undefined) throw new UsageError(LIMITS_USAGE);
  const account = await accountNamed(store, username, LIMITS_USAGE);
  const doc = {
    binds: count(parsed.values.binds, 'binds'),
    submitsPerSecond: count(parsed.values['submits-per-second'], 'submits-per-second'),
    window: count(parsed.values.window, 'window'),
  };
  if (Object.values(doc).every((v) => v === undefined)) throw new UsageError(LIMITS_USAGE);
  worked(await runOperation(operatorApp(store, config), account, setSmppLimits, doc, { via: 'operator' }));
  const said = [
    doc.binds !== undefined ? `${doc.binds} binds` : '',
    doc.submitsPerSecond !== undefined
      ? doc.submitsPerSecond === 0
        ? 'no limit of submits per second'
        : `${doc.submitsPerSecond} submits per second`
      : '',
    doc.window !== undefined ? `a window of ${doc.window}` : '',
  ].filter(Boolean);
  out(`SMPP limits of ${account.username}: ${said.join(', ')}`);
}
