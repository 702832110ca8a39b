// `yona admin push list|delete|enable|secret|log|allow-private ...`: operator commands for push registrations;
// allow-private runs the audited operation setPushAllowPrivate (operations/operator-changes.ts).
import type { Config } from '../config.ts';
import { formatEvent } from '../domain/dates.ts';
import { PUSH_TYPES } from '../domain/push-fields.ts';
import { generatePushSecret } from '../domain/push-sign.ts';
import { runOperation } from '../operations/execute.ts';
import { setPushPrivateAddresses } from '../operations/operator-changes.ts';
import { operatorApp, worked } from './operator-app.ts';
import { findAccountByUsername, type Account } from '../store/accounts.ts';
import type { Store } from '../store/engine/db.ts';
import { sealingKey } from '../secret-key.ts';
import {
  clearPushSecret,
  deletePushRegistration,
  enablePushRegistration,
  findPushRegistration,
  listPushAttempts,
  listPushRegistrations,
  setPushSecret,
} from '../store/push.ts';
import type { PushType } from '../store/schema/push.ts';
import { UsageError } from './usage-error.ts';

type Out = (line: string) => void;

const USAGE = [
  'usage: yona admin push list USERNAME [TYPE]',
  '       yona admin push delete USERNAME TYPE     (a new URL may then be registered)',
  '       yona admin push enable USERNAME TYPE     (back to registered; kept events are delivered)',
  '       yona admin push secret USERNAME [--clear] (generate and print a signing secret, or remove it)',
  '       yona admin push log USERNAME TYPE [N]    (the last N delivery attempts, default 20)',
  '       yona admin push allow-private USERNAME on|off (its push URLs may reach private and loopback addresses)',
].join('\n');

function fail(message: string): never {
  throw new UsageError(`${message}\n${USAGE}`);
}

async function accountOf(store: Store, username: string | undefined): Promise<Account> {
  if (!username) fail('missing USERNAME');
  return (await findAccountByUsername(store.db, username)) ?? fail(`no account named "${username}"`);
}

function typeOf(text: string | undefined): PushType {
  if (!text) fail('missing TYPE');
  if (!(PUSH_TYPES as readonly string[]).includes(text))
    fail(`TYPE must be one of ${PUSH_TYPES.join(', ')}, got "${text}"`);
  return text as PushType;
}

async function list(store: Store, args: string[], out: Out): Promise<void> {
  const account = await accountOf(store, args[0]);
  const regs = await listPushRegistrations(store.db, account.id, args[1] ? typeOf(args[1]) : undefined);
  if (regs.length === 0) out(`${account.username} has no push registrations`);
  const at = (ms: number) => formatEvent(Number(ms), account.time_zone);
  for (const r of regs) {
    let line = `${r.type} ${r.state} ${r.url} failures=${r.consecutive_failures} pending=${r.pending_events}`;
    if (r.state === 'disabled') line += ` disabled_at="${at(r.disabled_at ?? 0)}" reason="${r.disabled_reason ?? ''}"`;
    if (r.last_attempt) {
      const a = r.last_attempt;
      line += ` last="${at(a.at)} ${a.http_status ?? '-'} ${a.latency_ms}ms${a.error ? ` ${a.error}` : ''}"`;
    }
    out(line);
  }
}

async function remove(store: Store, args: string[], out: Out): Promise<void> {
  const account = await accountOf(store, args[0]);
  const type = typeOf(args[1]);
  const done = await store.db.transaction().execute((trx) => deletePushRegistration(trx, account.id, type, Date.now()));
  if (!done) fail(`${account.username} has no ${type} push registration`);
  out(
    `deleted the ${type} push registration of ${account.username}; its pending events are dropped and a new URL may be registered`,
  );
}

async function enable(store: Store, args: string[], out: Out): Promise<void> {
  const account = await accountOf(store, args[0]);
  const type = typeOf(args[1]);
  const result = await store.db
    .transaction()
    .execute((trx) => enablePushRegistration(trx, account.id, type, Date.now()));
  if (result === 'missing') fail(`${account.username} has no ${type} push registration`);
  out(
    result === 'enabled'
      ? `enabled the ${type} push registration of ${account.username}; kept events are delivered now`
      : `the ${type} push registration of ${account.username} is already registered`,
  );
}

async function secret(store: Store, args: string[], out: Out, config: Config): Promise<void> {
  const account = await accountOf(store, args[0]);
  if (args[1] === '--clear') {
    const had = await clearPushSecret(store.db, account.id);
    out(had ? `pushes of ${account.username} are no longer signed` : `${account.username} had no signing secret`);
    return;
  }
  if (args[1] !== undefined) fail(`unexpected argument "${args[1]}"`);
  const value = generatePushSecret();
  await setPushSecret(store.db, sealingKey(config), account.id, value, Date.now());
  out(
    `pushes of ${account.username} are now signed (X-Yona-Timestamp, X-Yona-Signature); give this secret to the receiver:`,
  );
  out(value);
}

async function log(store: Store, args: string[], out: Out): Promise<void> {
  const account = await accountOf(store, args[0]);
  const type = typeOf(args[1]);
  const limit =
    args[2] === undefined
      ? 20
      : /^\d+$/.test(args[2])
        ? Number(args[2])
        : fail(`N must be a whole number, got "${args[2]}"`);
  const reg =
    (await findPushRegistration(store.db, account.id, type)) ??
    fail(`${account.username} has no ${type} push registration`);
  const attempts = await listPushAttempts(store.db, reg.id, limit);
  if (attempts.length === 0) out('no delivery attempts yet');
  for (const a of attempts) {
    out(
      `${formatEvent(Number(a.at), account.time_zone)} event=${a.event_id} http=${a.http_status ?? '-'} ${a.latency_ms}ms${a.error ? ` error="${a.error}"` : ''}`,
    );
  }
}

async function allowPrivate(store: Store, args: string[], out: Out, config: Config): Promise<void> {
  const account = await accountOf(store, args[0]);
  if ((args[1] !== 'on' && args[1] !== 'off') || args.length > 2)
    fail('usage: yona admin push allow-private USERNAME on|off');
  const on = args[1] === 'on';
  worked(await runOperation(operatorApp(store, config), account, setPushPrivateAddresses, { on }, { via: 'operator' }));
  out(
    args[1] === 'on'
      ? `push URLs of ${account.username} may now reach private and loopback addresses`
      : `push URLs of ${account.username} must reach public addresses (unless YONA_PUSH_ALLOW_PRIVATE is on)`,
  );
}

const SUBCOMMANDS: Record<string, (store: Store, args: string[], out: Out, config: Config) => Promise<void>> = {
  list,
  delete: remove,
  enable,
  secret,
  log,
  'allow-private': allowPrivate,
};

/** `yona admin push SUBCOMMAND ...` (registered in ADMIN_COMMANDS). */
export async function pushAdminCommand(store: Store, config: Config, args: string[], out: Out): Promise<void> {
  const sub = args[0] ? SUBCOMMANDS[args[0]] : undefined;
  if (!sub) fail(args[0] ? `unknown push command "${args[0]}"` : 'missing push command');
  await sub(store, args.slice(1), out, config);
}
