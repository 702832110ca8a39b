// What `yona admin` runs operations with: the operation runner's context for the operator (no workers to wake in
// this process: the serving processes pick up the rows on their next round), and a refusal as a usage error.
import { userInfo } from 'node:os';
import type { z } from 'zod';
import type { Config } from '../config.ts';
import type { AppContext } from '../operations/execute.ts';
import type { OperationReply, ReplyTo } from '../operations/types.ts';
import type { Store } from '../store/engine/db.ts';
import { UsageError } from './usage-error.ts';

/** The name the audit log gives `yona admin`'s changes: the system user running it, or `cli`. */
export function cliOperatorName(): string {
  try {
    return userInfo().username || 'cli';
  } catch {
    return 'cli';
  }
}

/** The runner's context for `yona admin` on `store`: its changes are audited as the CLI's, from `local`. */
export function operatorApp(store: Store, config: Config): AppContext {
  return {
    store,
    config,
    signals: { notify: () => {} },
    clock: () => Date.now(),
    onUnexpectedError: () => {},
    operator: { name: cliOperatorName(), role: 'admin', via: 'cli', address: 'local' },
  };
}

/** The reply of a run that worked; a refusal becomes a usage error (exit 2) with its message, or `words` for it. */
export function worked<R extends z.ZodType>(
  reply: OperationReply<R>,
  words: Record<number, string> = {},
  success: readonly number[] = [0],
): ReplyTo<R> {
  if (!success.includes(reply.status)) throw new UsageError(words[reply.status] ?? reply.message);
  return reply as ReplyTo<R>;
}
