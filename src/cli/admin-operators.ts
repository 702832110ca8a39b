// `yona admin create-operator NAME --password PW [--role admin|support]`: an operator of the console at /admin,
// through the createOperator operation. The operator enrols an authenticator app at the first sign-in.
import { parseArgs } from 'node:util';
import type { Config } from '../config.ts';
import { passwordProblem, usernameProblem } from '../domain/accounts.ts';
import { runForOperator } from '../operations/execute.ts';
import { createOperator } from '../operations/operators.ts';
import type { Store } from '../store/engine/db.ts';
import { operatorApp, worked } from './operator-app.ts';
import { parseArgsProblem, UsageError } from './usage-error.ts';

const USAGE = 'usage: yona admin create-operator NAME --password PW [--role admin|support]';

export async function createOperatorCommand(
  store: Store,
  config: Config,
  args: string[],
  out: (line: string) => void,
): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { password: { type: 'string' }, role: { type: 'string', default: 'admin' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw parseArgsProblem(err) ?? new UsageError(`${(err as Error).message}\n${USAGE}`);
  }
  const [name, extra] = parsed.positionals;
  if (!name || extra !== undefined) throw new UsageError(USAGE);
  const { password, role } = parsed.values;
  if (password === undefined) throw new UsageError(`missing --password\n${USAGE}`);
  if (role !== 'admin' && role !== 'support') throw new UsageError(`--role is admin or support, got "${role}"`);
  const problem = usernameProblem(name) ?? passwordProblem(password);
  if (problem) throw new UsageError(problem);
  const reply = await runForOperator(operatorApp(store, config), createOperator, { name, password, role });
  worked(reply, { 994: `an operator named "${name}" already exists` });
  out(`created operator ${name} (${role}); the first sign-in at /admin/login enrols an authenticator app`);
}
