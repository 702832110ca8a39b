// `yona admin ...`: operator commands on the same store the server uses (safe while it runs).
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../config.ts';
import { passwordProblem, sourceProblem, usernameProblem } from '../domain/accounts.ts';
import { isValidTimeZone } from '../domain/dates.ts';
import { parseCidr } from '../domain/ip.ts';
import { parseShekels } from '../domain/money.ts';
import { hashPassword } from '../domain/password.ts';
import { parseDuration } from '../domain/token.ts';
import { formatLong } from '../domain/dates.ts';
import { mintToken } from '../operations/tokens.ts';
import { allowIp, findAccountByUsername, insertAccount, setIpCheck, type Account } from '../store/accounts.ts';
import { deleteToken } from '../store/tokens.ts';
import { openStore, type Store } from '../store/db.ts';
import { applyLedgerChange } from '../store/ledger.ts';
import { addVerifiedSender } from '../store/senders.ts';

export class UsageError extends Error {}

type Command = (store: Store, config: Config, args: string[], out: (line: string) => void) => Promise<void>;

function fail(message: string): never {
  throw new UsageError(message);
}

async function account(store: Store, username: string | undefined): Promise<Account> {
  if (!username) fail('missing USERNAME');
  const found = await findAccountByUsername(store.db, username);
  if (!found) fail(`no account named "${username}"`);
  return found;
}

function positiveInt(text: string | undefined, what: string): number {
  if (text === undefined || !/^\d+$/.test(text)) fail(`${what} must be a whole number, got "${text ?? ''}"`);
  return Number(text);
}

const createAccount: Command = async (store, config, args, out) => {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      password: { type: 'string' },
      name: { type: 'string' },
      credits: { type: 'string' },
      international: { type: 'string' },
      reseller: { type: 'boolean', default: false },
      parent: { type: 'string' },
      'time-zone': { type: 'string' },
      'allow-ip': { type: 'string', multiple: true },
    },
  });
  const [username] = positionals;
  if (!username) fail('usage: yona admin create-account USERNAME --password PW [--name N] [--credits N] [--international SHEKELS] [--reseller] [--parent USERNAME] [--time-zone TZ] [--allow-ip CIDR]...');
  const problem = usernameProblem(username) ?? (values.password === undefined ? 'missing --password' : passwordProblem(values.password));
  if (problem) fail(problem);
  const credits = values.credits === undefined ? 0 : positiveInt(values.credits, '--credits');
  const agorot = values.international === undefined ? 0 : parseShekels(values.international);
  if (agorot === null) fail(`--international must be shekels like 12.50, got "${values.international}"`);
  const timeZone = values['time-zone'] ?? config.defaultTimeZone;
  if (!isValidTimeZone(timeZone)) fail(`--time-zone is not a time zone: "${timeZone}"`);
  const cidrs = (values['allow-ip'] ?? []).map((c) => parseCidr(c) ?? fail(`--allow-ip is not an address or CIDR: "${c}"`));
  const parent = values.parent ? await account(store, values.parent) : undefined;
  if (await findAccountByUsername(store.db, username)) fail(`an account named "${username}" already exists`);
  const passwordHash = await hashPassword(values.password!);
  const now = Date.now();
  await store.db.transaction().execute(async (trx) => {
    const id = await insertAccount(trx, {
      username, name: values.name ?? username, passwordHash, isReseller: values.reseller!,
      parentId: parent?.id ?? null, timeZone, now,
    });
    await applyLedgerChange(trx, { accountId: id, currency: 'credits', amount: credits, reason: 'operator: opening balance', now });
    await applyLedgerChange(trx, { accountId: id, currency: 'international', amount: agorot, reason: 'operator: opening balance', now });
    for (const cidr of cidrs) await allowIp(trx, id, cidr, now);
  });
  out(`created account ${username}${values.reseller ? ' (reseller)' : ''} with ${credits} credits`);
};

const createToken: Command = async (store, config, args, out) => {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { 'expires-in': { type: 'string' } } });
  const target = await account(store, positionals[0]);
  let ttl = config.tokenTtlMs;
  if (values['expires-in'] !== undefined) {
    ttl = parseDuration(values['expires-in']) ?? fail(`--expires-in must look like 90d, 12h or 2s, got "${values['expires-in']}"`);
  }
  const now = Date.now();
  const minted = await store.db.transaction().execute((trx) => mintToken(trx, target, now, ttl));
  out(`token "${minted.name}" for ${target.username}, expires ${formatLong(minted.expiresAt, target.time_zone)}; shown once, store it now:`);
  out(minted.token);
};

const allowIpCommand: Command = async (store, _config, args, out) => {
  const target = await account(store, args[0]);
  const cidr = parseCidr(args[1] ?? '') ?? fail(`usage: yona admin allow-ip USERNAME CIDR (got "${args[1] ?? ''}")`);
  await allowIp(store.db, target.id, cidr, Date.now());
  out(`${target.username} may now call from ${cidr} (IP check on)`);
};

const addCredits: Command = async (store, _config, args, out) => {
  const target = await account(store, args[0]);
  const amount = positiveInt(args[1], 'N');
  await store.db.transaction().execute((trx) =>
    applyLedgerChange(trx, { accountId: target.id, currency: 'credits', amount, reason: 'operator: add-credits', now: Date.now() }),
  );
  const after = await account(store, target.username);
  out(`${target.username} now has ${after.credits} credits`);
};

const verifySender: Command = async (store, _config, args, out) => {
  const target = await account(store, args[0]);
  const source = args[1] ?? fail('usage: yona admin verify-sender USERNAME SOURCE');
  const problem = sourceProblem(source);
  if (problem) fail(problem);
  await addVerifiedSender(store.db, target.id, source, 'operator', Date.now());
  out(`${source} is a verified sender of ${target.username}`);
};

const ipCheck: Command = async (store, _config, args, out) => {
  const target = await account(store, args[0]);
  if (args[1] !== 'on' && args[1] !== 'off') fail('usage: yona admin ip-check USERNAME on|off');
  await setIpCheck(store.db, target.id, args[1] === 'on');
  out(`IP check for ${target.username} is ${args[1]}`);
};

const deleteTokenCommand: Command = async (store, _config, args, out) => {
  const target = await account(store, args[0]);
  const name = args[1] ?? fail('usage: yona admin delete-token USERNAME "TOKEN NAME"');
  if (!(await deleteToken(store.db, target.id, name))) fail(`${target.username} has no token named "${name}"`);
  out(`deleted token "${name}" of ${target.username}; it stops working now`);
};

/** Admin commands by name; other issues add theirs here. */
export const ADMIN_COMMANDS: Record<string, Command> = {
  'create-account': createAccount,
  'create-token': createToken,
  'allow-ip': allowIpCommand,
  'add-credits': addCredits,
  'verify-sender': verifySender,
  'ip-check': ipCheck,
  'delete-token': deleteTokenCommand,
  'add-carrier': (...a) => import('./admin-carriers.ts').then((m) => m.addCarrier(...a)),
  'add-route': (...a) => import('./admin-carriers.ts').then((m) => m.addRoute(...a)),
  'add-number': (...a) => import('./admin-carriers.ts').then((m) => m.addNumber(...a)),
  carriers: (...a) => import('./admin-carriers.ts').then((m) => m.listCarriersCommand(...a)),
  push: (...a) => import('./admin-push.ts').then((m) => m.pushAdminCommand(...a)),
};

/** Runs one admin command on an open store (tests call this in-process). */
export async function runAdminCommand(store: Store, config: Config, args: string[], out: (line: string) => void): Promise<void> {
  const [name, ...rest] = args;
  const command = name ? ADMIN_COMMANDS[name] : undefined;
  if (!command) fail(`usage: yona admin <${Object.keys(ADMIN_COMMANDS).join('|')}> ...`);
  await command(store, config, rest, out);
}

/** Runs `yona admin NAME ARGS...` against the configured store. */
export async function runAdmin(args: string[], out: (line: string) => void = console.log): Promise<void> {
  if (!args[0] || !ADMIN_COMMANDS[args[0]]) fail(`usage: yona admin <${Object.keys(ADMIN_COMMANDS).join('|')}> ...`);
  const config = loadConfig();
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await runAdminCommand(store, config, args, out);
  } finally {
    await store.close();
  }
}
