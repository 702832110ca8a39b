// `yona admin set-password USERNAME --password PW`: the account's console password (argon2id), through the
// setConsolePassword operation the console's own form runs. Signs the account out of every console session and
// lifts a sign-in lockout.
import { parseArgs } from 'node:util';
import type { Config } from '../config.ts';
import { passwordProblem } from '../domain/accounts.ts';
import { setConsolePassword } from '../operations/account-security.ts';
import { runOperation } from '../operations/execute.ts';
import { findAccountByUsername } from '../store/accounts.ts';
import type { Store } from '../store/engine/db.ts';
import { operatorApp, worked } from './operator-app.ts';
import { UsageError } from './usage-error.ts';

const USAGE = 'usage: yona admin set-password USERNAME --password PW';

export async function setPasswordCommand(
  store: Store,
  config: Config,
  args: string[],
  out: (line: string) => void,
): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { password: { type: 'string' } }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n${USAGE}`);
  }
  const [username, extra] = parsed.positionals;
  if (!username || extra !== undefined) throw new UsageError(USAGE);
  const password = parsed.values.password;
  if (password === undefined) throw new UsageError(`missing --password\n${USAGE}`);
  const problem = passwordProblem(password);
  if (problem) throw new UsageError(problem);
  const account = await findAccountByUsername(store.db, username);
  if (!account) throw new UsageError(`no account named "${username}"`);
  const reply = await runOperation(
    operatorApp(store, config),
    account,
    setConsolePassword,
    { password },
    { via: 'operator' },
  );
  worked(reply);
  out(`the console password of ${username} is set; its console sessions are signed out`);
}
