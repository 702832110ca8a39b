// Runs an API operation for the signed-in account, exactly as the API would (same validation, same handler, one
// transaction, workers signalled after commit), so the console never re-implements what the API does.
import type { z } from 'zod';
import { ApiError } from '../../domain/errors.ts';
import type { RequestStatus } from '../../domain/status.ts';
import type { Account } from '../../store/accounts.ts';
import type { AppContext } from '../../operations/execute.ts';
import { firstIssue } from '../../operations/fields.ts';
import type { Operation, Reply, Signals } from '../../operations/types.ts';

export async function runOperation(
  app: AppContext,
  account: Account,
  op: Operation<z.ZodType>,
  doc: Record<string, unknown>,
): Promise<Reply> {
  const parsed = op.input.safeParse(doc);
  if (!parsed.success) {
    const issue = firstIssue(parsed.error.issues);
    const custom = (issue as { params?: { status?: RequestStatus } }).params?.status;
    // A field's own check says which field in its message, as the operation's handler would.
    if (custom) return { status: custom, message: issue.message };
    return { status: 2, message: `${issue.path.join('.') || 'form'}: ${issue.message}` };
  }
  const pending = new Set<'dispatch' | 'push' | 'schedule'>();
  const signals: Signals = { notify: (topic) => pending.add(topic) };
  try {
    const prepared = op.prepare ? await op.prepare(parsed.data) : undefined;
    const reply = await app.store.db.transaction().execute((trx) =>
      op.handler(
        {
          db: trx,
          dialect: app.store.dialect,
          config: app.config,
          signals,
          account,
          caller: account,
          now: app.clock(),
          dryRun: false,
          prepared,
        },
        parsed.data,
      ),
    );
    for (const topic of pending) app.signals.notify(topic);
    return reply;
  } catch (err) {
    if (err instanceof ApiError) return { status: err.status, message: err.message, ...err.extra };
    throw err;
  }
}
