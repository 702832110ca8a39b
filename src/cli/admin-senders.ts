// Sender requests from the CLI, through the same operations as the operator console:
//   senders [--pending] [--json]            the requests (waiting first) and every verified sender
//   approve-sender ID                       the name becomes a verified sender of the account
//   reject-sender ID --reason TEXT          the customer sees the reason
//   reserved-senders list | add NAME | remove NAME   the names no one may request (NAME* for a prefix)
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Config } from '../config.ts';
import { formatLong } from '../domain/dates.ts';
import { runForOperator } from '../operations/execute.ts';
import { approveSender, rejectSender, setReservedSender } from '../operations/sender-requests.ts';
import type { Store } from '../store/engine/db.ts';
import { allSenderRequests, reservedSenderPatterns } from '../store/sender-requests.ts';
import { allVerifiedSenders } from '../store/senders.ts';
import { cliOperatorName, operatorApp, worked } from './operator-app.ts';
import { parseArgsProblem, UsageError } from './usage-error.ts';

type Out = (line: string) => void;

function fail(message: string): never {
  throw new UsageError(message);
}

function parse<T extends ParseArgsConfig['options']>(args: string[], options: T) {
  try {
    return parseArgs({ args, allowPositionals: true, options });
  } catch (err) {
    throw parseArgsProblem(err) ?? err;
  }
}

function requestId(text: string | undefined, usage: string): number {
  if (text === undefined || !/^\d{1,15}$/.test(text)) fail(`usage: ${usage}`);
  return Number(text);
}

export async function sendersCommand(store: Store, config: Config, args: string[], out: Out): Promise<void> {
  const { values, positionals } = parse(args, { pending: { type: 'boolean' }, json: { type: 'boolean' } });
  if (positionals.length) fail('usage: yona admin senders [--pending] [--json]');
  const requests = await allSenderRequests(store.db, { pendingOnly: values.pending === true });
  const verified = values.pending ? [] : await allVerifiedSenders(store.db);
  if (values.json) {
    out(JSON.stringify({ requests, verified }));
    return;
  }
  const zone = config.defaultTimeZone;
  if (requests.length === 0) out('no sender requests');
  for (const r of requests) {
    const decided = r.state === 'pending' ? '' : ` by ${r.decidedBy} ${formatLong(r.decidedAt ?? 0, zone)}`;
    const why = r.decisionReason ? `: ${r.decisionReason}` : '';
    out(
      `#${r.id} ${r.username} ${r.source} ${r.state}${decided}${why} (asked ${formatLong(r.requestedAt, zone)}: ${r.reason})`,
    );
  }
  for (const v of verified) out(`verified ${v.username} ${v.source} (${v.method}, ${formatLong(v.verifiedAt, zone)})`);
}

export async function approveSenderCommand(store: Store, config: Config, args: string[], out: Out): Promise<void> {
  const usage = 'yona admin approve-sender ID';
  if (args.length !== 1) fail(`usage: ${usage}`);
  const id = requestId(args[0], usage);
  const r = worked(await runForOperator(operatorApp(store, config), approveSender, { id, by: cliOperatorName() }));
  out(`approved: ${r.source} is a verified sender of ${r.username}`);
}

export async function rejectSenderCommand(store: Store, config: Config, args: string[], out: Out): Promise<void> {
  const usage = 'yona admin reject-sender ID --reason TEXT';
  const { values, positionals } = parse(args, { reason: { type: 'string' } });
  if (positionals.length !== 1 || !values.reason) fail(`usage: ${usage}`);
  const id = requestId(positionals[0], usage);
  const r = worked(
    await runForOperator(operatorApp(store, config), rejectSender, {
      id,
      by: cliOperatorName(),
      reason: values.reason,
    }),
  );
  out(`rejected: ${r.source} of ${r.username}`);
}

export async function reservedSendersCommand(store: Store, config: Config, args: string[], out: Out): Promise<void> {
  const usage = 'yona admin reserved-senders list | add NAME | remove NAME';
  const [sub, name, extra] = args;
  if (sub === 'list' && name === undefined) {
    for (const p of await reservedSenderPatterns(store.db)) out(p);
    return;
  }
  if ((sub !== 'add' && sub !== 'remove') || name === undefined || extra !== undefined) fail(`usage: ${usage}`);
  const r = worked(
    await runForOperator(operatorApp(store, config), setReservedSender, { pattern: name, reserved: sub === 'add' }),
  );
  if (sub === 'add') out(r.changed ? `reserved: ${r.pattern}` : `${r.pattern} was reserved already`);
  else out(r.changed ? `no longer reserved: ${r.pattern}` : `${r.pattern} was not reserved`);
}
