// `yona admin ...`: operator commands on the same store the server uses (safe while it runs).
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { loadConfig, settingGiven, type Config } from '../config.ts';
import { passwordProblem, sourceProblem, usernameProblem } from '../domain/accounts.ts';
import { isValidTimeZone } from '../domain/dates.ts';
import { parseCidr } from '../domain/ip.ts';
import { parseShekels } from '../domain/money.ts';
import { parseDuration } from '../domain/token.ts';
import { formatLong } from '../domain/dates.ts';
import { addAllowedAddress, deleteApiToken, mintApiToken, setAddressCheck } from '../operations/account-access.ts';
import { createAccount as createAccountOperation } from '../operations/account-creation.ts';
import { runForOperator, runOperation } from '../operations/execute.ts';
import { findAccountByUsername, type Account } from '../store/accounts.ts';
import {
  addFilteredPhoneList,
  creditAccount,
  setOtpAbroad,
  setPasswordAuthentication,
  verifySender,
} from '../operations/operator-changes.ts';
import { openStore, type Store } from '../store/engine/db.ts';
import { sealClearSecrets } from '../store/seal-at-rest.ts';
import { carrierSecrets } from '../carriers/index.ts';
import { hasSealingKey, sealingKey } from '../secret-key.ts';
import { ADMIN_HELP, didYouMean, formatCommandList, formatHelp, wantsHelp } from './help.ts';
import { readFileSync } from 'node:fs';
import { operatorApp, worked } from './operator-app.ts';
import { parseArgsProblem, UsageError } from './usage-error.ts';
import { locateStore, missingStoreProblem, takeStoreFlags, type StoreChoice } from './store-location.ts';

export { parseArgsProblem, UsageError };

type Command = (store: Store, config: Config, args: string[], out: (line: string) => void) => Promise<void>;

function fail(message: string): never {
  throw new UsageError(message);
}

/** Parses a command's options; argument errors become one-line UsageErrors (an unknown option names the nearest). */
function options<T extends ParseArgsConfig['options']>(args: string[], spec: T) {
  try {
    return parseArgs({ args, allowPositionals: true, options: spec });
  } catch (err) {
    const problem = parseArgsProblem(err);
    const unknown = /^unknown option (--[^\s;]+)$/.exec(problem?.message ?? '')?.[1];
    if (unknown)
      throw new UsageError(
        `unknown option ${unknown}${didYouMean(
          unknown,
          Object.keys(spec ?? {}).map((o) => `--${o}`),
        )}`,
      );
    throw problem ?? err;
  }
}

/** The arguments of a command that takes no options: any `--flag` is an error. */
function positionals(args: string[], usage: string): string[] {
  const flag = args.find((a) => a.startsWith('--'));
  if (flag) fail(`unknown option ${flag.split('=')[0]}; usage: ${usage}`);
  return args;
}

async function account(store: Store, username: string | undefined): Promise<Account> {
  if (!username) fail('missing USERNAME');
  const found = await findAccountByUsername(store.db, username);
  if (!found) fail(`no account named "${username}"`);
  return found;
}

/** The most credits one command may grant (an opening balance or one add-credits). */
export const MAX_CREDITS_PER_COMMAND = 1_000_000_000_000;
/** The longest token lifetime `--expires-in` accepts. */
const MAX_EXPIRES_IN_MS = 100 * 365 * 86_400_000;

function creditAmount(text: string | undefined, what: string): number {
  const range = `a whole number from 0 to ${MAX_CREDITS_PER_COMMAND}`;
  if (text === undefined || !/^\d+$/.test(text)) fail(`${what} must be ${range}, got "${text ?? ''}"`);
  const amount = Number(text);
  if (amount > MAX_CREDITS_PER_COMMAND) fail(`${what} must be ${range}, got ${text}`);
  return amount;
}

function tokenLifetime(text: string): number {
  const ms = parseDuration(text);
  if (ms === null) fail(`--expires-in must look like 90d, 12h or 2s, got "${text}"`);
  if (ms <= 0 || ms > MAX_EXPIRES_IN_MS) fail(`--expires-in must be more than 0 and at most 100y, got "${text}"`);
  return ms;
}

const createAccount: Command = async (store, config, args, out) => {
  const {
    values,
    positionals: [username],
  } = options(args, {
    password: { type: 'string' },
    name: { type: 'string' },
    credits: { type: 'string' },
    international: { type: 'string' },
    reseller: { type: 'boolean', default: false },
    parent: { type: 'string' },
    'time-zone': { type: 'string' },
    'allow-ip': { type: 'string', multiple: true },
  });
  if (!username)
    fail(
      'usage: yona admin create-account USERNAME --password PW [--name N] [--credits N] [--international SHEKELS] [--reseller] [--parent USERNAME] [--time-zone TZ] [--allow-ip CIDR]...',
    );
  const problem =
    usernameProblem(username) ??
    (values.password === undefined ? 'missing --password' : passwordProblem(values.password));
  if (problem) fail(problem);
  const credits = values.credits === undefined ? 0 : creditAmount(values.credits, '--credits');
  const agorot = values.international === undefined ? 0 : parseShekels(values.international);
  if (agorot === null) fail(`--international must be shekels like 12.50, got "${values.international}"`);
  const timeZone = values['time-zone'] ?? config.defaultTimeZone;
  if (!isValidTimeZone(timeZone)) fail(`--time-zone is not a time zone: "${timeZone}"`);
  const cidrs = (values['allow-ip'] ?? []).map(
    (c) => parseCidr(c) ?? fail(`--allow-ip is not an address or CIDR: "${c}"`),
  );
  if (values.parent) await account(store, values.parent);
  const reply = await runForOperator(operatorApp(store, config), createAccountOperation, {
    username,
    password: values.password!,
    name: values.name,
    credits,
    internationalAgorot: agorot,
    reseller: values.reseller!,
    parent: values.parent,
    timeZone,
    allowIps: cidrs,
  });
  worked(reply, {
    994: `an account named "${username}" already exists (names are compared without regard to case)`,
    3: `no account named "${values.parent}"`,
  });
  out(`created account ${username}${values.reseller ? ' (reseller)' : ''} with ${credits} credits`);
};

const createToken: Command = async (store, config, args, out) => {
  const {
    values,
    positionals: [username],
  } = options(args, { 'expires-in': { type: 'string' } });
  const target = await account(store, username);
  if (target.closed_at != null) fail(`${target.username} is closed: a closed account gets no tokens`);
  const ttl = values['expires-in'] === undefined ? config.tokenTtlMs : tokenLifetime(values['expires-in']);
  const reply = await runOperation(
    operatorApp(store, config),
    target,
    mintApiToken,
    { ttlMs: ttl },
    { via: 'operator' },
  );
  if (reply.status === 511)
    throw new Error(`${target.username}: ${reply.message} (yona admin delete-token ${target.username} "TOKEN NAME")`);
  const minted = worked(reply);
  out(
    `token "${minted.name}" for ${target.username}, expires ${formatLong(minted.expiresAt, target.time_zone)}; shown once, store it now:`,
  );
  out(minted.token);
};

const allowIpCommand: Command = async (store, config, all, out) => {
  const args = positionals(all, 'yona admin allow-ip USERNAME CIDR');
  const target = await account(store, args[0]);
  const cidr = parseCidr(args[1] ?? '') ?? fail(`usage: yona admin allow-ip USERNAME CIDR (got "${args[1] ?? ''}")`);
  worked(
    await runOperation(
      operatorApp(store, config),
      target,
      addAllowedAddress,
      { cidr, checkOn: true },
      { via: 'operator' },
    ),
  );
  out(`${target.username} may now call from ${cidr} (IP check on)`);
};

const addCredits: Command = async (store, config, all, out) => {
  const args = positionals(all, `yona admin add-credits USERNAME N (N at most ${MAX_CREDITS_PER_COMMAND})`);
  const target = await account(store, args[0]);
  const amount = creditAmount(args[1], 'N');
  if (amount === 0) {
    out(`${target.username} now has ${target.credits} credits`);
    return;
  }
  const app = operatorApp(store, config);
  const reply = await runOperation(app, target, creditAccount, { amount, reason: 'add-credits' }, { via: 'operator' });
  out(`${target.username} now has ${worked(reply).credits} credits`);
};

const verifySenderCommand: Command = async (store, config, all, out) => {
  const args = positionals(all, 'yona admin verify-sender USERNAME SOURCE');
  const target = await account(store, args[0]);
  const source = args[1] ?? fail('usage: yona admin verify-sender USERNAME SOURCE');
  const problem = sourceProblem(source);
  if (problem) fail(problem);
  worked(await runOperation(operatorApp(store, config), target, verifySender, { source }, { via: 'operator' }));
  out(`${source} is a verified sender of ${target.username}`);
};

const ipCheck: Command = async (store, config, all, out) => {
  const args = positionals(all, 'yona admin ip-check USERNAME on|off');
  const target = await account(store, args[0]);
  if (args[1] !== 'on' && args[1] !== 'off') fail('usage: yona admin ip-check USERNAME on|off');
  const on = args[1] === 'on';
  worked(await runOperation(operatorApp(store, config), target, setAddressCheck, { on }, { via: 'operator' }));
  out(`IP check for ${target.username} is ${args[1]}`);
};

const deleteTokenCommand: Command = async (store, config, all, out) => {
  const args = positionals(all, 'yona admin delete-token USERNAME "TOKEN NAME"');
  const target = await account(store, args[0]);
  const name = args[1] ?? fail('usage: yona admin delete-token USERNAME "TOKEN NAME"');
  const deleted = await runOperation(operatorApp(store, config), target, deleteApiToken, { name }, { via: 'operator' });
  if (!worked(deleted).done) fail(`${target.username} has no token named "${name}"`);
  out(`deleted token "${name}" of ${target.username}; it stops working now`);
};

const otpInternational: Command = async (store, config, all, out) => {
  const args = positionals(all, 'yona admin otp-international USERNAME on|off');
  const target = await account(store, args[0]);
  if (args[1] !== 'on' && args[1] !== 'off') fail('usage: yona admin otp-international USERNAME on|off');
  const on = args[1] === 'on';
  worked(await runOperation(operatorApp(store, config), target, setOtpAbroad, { on }, { via: 'operator' }));
  out(`one-time codes to international numbers for ${target.username}: ${args[1]}`);
};

const legacyPassword: Command = async (store, config, all, out) => {
  const args = positionals(all, 'yona admin legacy-password USERNAME on|off');
  const target = await account(store, args[0]);
  if (args[1] !== 'on' && args[1] !== 'off') fail('usage: yona admin legacy-password USERNAME on|off');
  const on = args[1] === 'on';
  const app = operatorApp(store, config);
  worked(await runOperation(app, target, setPasswordAuthentication, { on }, { via: 'operator' }));
  out(`password authentication (without a bearer token, over HTTPS only) for ${target.username}: ${args[1]}`);
};

const addFiltered: Command = async (store, config, args, out) => {
  const { values, positionals: given } = options(args, { file: { type: 'string' } });
  const raw = [
    ...given,
    ...(values.file
      ? readFileSync(values.file, 'utf8')
          .split(/\r?\n/)
          .map((l) => l.trim())
          .filter(Boolean)
      : []),
  ];
  if (raw.length === 0) fail('usage: yona admin add-filtered PHONE... | --file FILE (one phone a line)');
  const { added } = worked(await runForOperator(operatorApp(store, config), addFilteredPhoneList, { phones: raw }));
  const unique = new Set(raw).size;
  out(
    `${added} filtered phones added (${unique - added} already known); voice sends of type 2 call them instead of texting`,
  );
};

/** Admin commands by name. */
export const ADMIN_COMMANDS: Record<string, Command> = {
  backup: onStoreFiles('backup'),
  restore: onStoreFiles('restore'),
  'create-account': createAccount,
  'create-token': createToken,
  'allow-ip': allowIpCommand,
  'add-credits': addCredits,
  'verify-sender': verifySenderCommand,
  'ip-check': ipCheck,
  'delete-token': deleteTokenCommand,
  'add-carrier': (...a) => import('./admin-carriers.ts').then((m) => m.addCarrier(...a)),
  'remove-carrier': (...a) => import('./admin-carriers.ts').then((m) => m.removeCarrier(...a)),
  'add-route': (...a) => import('./admin-routes.ts').then((m) => m.addRoute(...a)),
  'remove-route': (...a) => import('./admin-routes.ts').then((m) => m.removeRoute(...a)),
  'route-test': (...a) => import('./admin-routes.ts').then((m) => m.routeTest(...a)),
  'add-number': (...a) => import('./admin-carriers.ts').then((m) => m.addNumber(...a)),
  carriers: (...a) => import('./admin-carriers.ts').then((m) => m.listCarriersCommand(...a)),
  push: (...a) => import('./admin-push.ts').then((m) => m.pushAdminCommand(...a)),
  'whatsapp-number': (...a) => import('./admin-whatsapp-numbers.ts').then((m) => m.whatsappNumberCommand(...a)),
  ledger: (...a) => import('./admin-ledger.ts').then((m) => m.ledgerCommand(...a)),
  report: (...a) => import('./admin-report-margins.ts').then((m) => m.reportCommand(...a)),
  senders: (...a) => import('./admin-senders.ts').then((m) => m.sendersCommand(...a)),
  'approve-sender': (...a) => import('./admin-senders.ts').then((m) => m.approveSenderCommand(...a)),
  'reject-sender': (...a) => import('./admin-senders.ts').then((m) => m.rejectSenderCommand(...a)),
  'reserved-senders': (...a) => import('./admin-senders.ts').then((m) => m.reservedSendersCommand(...a)),
  price: (...a) => import('./admin-prices.ts').then((m) => m.priceCommand(...a)),
  alerts: (...a) => import('./admin-alerts.ts').then((m) => m.alertsCommand(...a)),
  nodes: (...a) => import('./admin-nodes.ts').then((m) => m.nodesCommand(...a)),
  'smpp-sessions': (...a) => import('./admin-smpp-sessions.ts').then((m) => m.smppSessionsCommand(...a)),
  accounts: (...a) => import('./admin-accounts.ts').then((m) => m.accountsCommand(...a)),
  suspend: (...a) => import('./admin-accounts.ts').then((m) => m.suspendCommand(...a)),
  resume: (...a) => import('./admin-accounts.ts').then((m) => m.resumeCommand(...a)),
  'close-account': (...a) => import('./admin-accounts.ts').then((m) => m.closeAccountCommand(...a)),
  credit: (...a) => import('./admin-accounts.ts').then((m) => m.creditCommand(...a)),
  'otp-international': otpInternational,
  'add-filtered': addFiltered,
  'legacy-password': legacyPassword,
  'set-password': (...a) => import('./admin-console.ts').then((m) => m.setPasswordCommand(...a)),
  'whatsapp-price': (...a) => import('./admin-whatsapp-prices.ts').then((m) => m.whatsappPriceCommand(...a)),
  'smpp-password': (...a) => import('./admin-smpp.ts').then((m) => m.smppPasswordCommand(...a)),
  'smpp-limits': (...a) => import('./admin-smpp.ts').then((m) => m.smppLimitsCommand(...a)),
  'create-operator': (...a) => import('./admin-operators.ts').then((m) => m.createOperatorCommand(...a)),
};

const ADMIN_LIST = () =>
  formatCommandList('usage: yona admin COMMAND [ARGS]', ADMIN_HELP, 'yona admin COMMAND --help explains a command.');

// Commands on the store's files rather than through an open store (a restore replaces it).
const STORE_FILE_COMMANDS: Record<
  string,
  (choice: StoreChoice, args: string[], out: (l: string) => void) => Promise<void>
> = {
  backup: (...a) => import('./admin-backup.ts').then((m) => m.backup(...a)),
  restore: (...a) => import('./admin-backup.ts').then((m) => m.restore(...a)),
};

// The command named by `name`, or a UsageError naming the nearest one.
function adminCommand(name: string | undefined): Command {
  if (!name) fail(`a command is needed\n${ADMIN_LIST()}`);
  const command = ADMIN_COMMANDS[name];
  if (!command)
    fail(
      `unknown admin command "${name}"${didYouMean(name, Object.keys(ADMIN_COMMANDS))} (yona admin --help lists them)`,
    );
  return command;
}

/** Runs one admin command on an open store (tests call this in-process). */
export async function runAdminCommand(
  store: Store,
  config: Config,
  args: string[],
  out: (line: string) => void,
): Promise<void> {
  const [name, ...rest] = args;
  await adminCommand(name)(store, config, rest, out);
}

// backup and restore run from runAdmin on the store's files; through an open store they cannot.
function onStoreFiles(name: string): Command {
  return async () => fail(`${name} works on the store's files: run it as yona admin ${name} FILE`);
}

// A store that is not there: any use of it refuses (so a command's own argument errors still come first).
function refusingStore(problem: Error): Store {
  const refuse = (): never => {
    throw problem;
  };
  return {
    get db() {
      return refuse();
    },
    get control() {
      return refuse();
    },
    dialect: 'sqlite',
    shared: false,
    close: async () => {},
  };
}

/**
 * Runs `yona admin NAME ARGS...` against the store it finds (store-location.ts), saying on stderr which it used;
 * `--help` prints help and opens nothing.
 */
export async function runAdmin(
  all: string[],
  out: (line: string) => void = console.log,
  note: (line: string) => void = console.error,
): Promise<void> {
  const { args, flags } = takeStoreFlags(all);
  if (args[0] === '--help' || args[0] === '-h' || args[0] === 'help') {
    out(ADMIN_LIST());
    return;
  }
  adminCommand(args[0]);
  if (wantsHelp(args.slice(1))) {
    out(formatHelp(ADMIN_HELP[args[0]]));
    return;
  }
  const config = loadConfig();
  const choice = locateStore(config, flags, settingGiven('YONA_DATA_DIR'));
  const onFiles = STORE_FILE_COMMANDS[args[0]];
  if (onFiles) {
    await onFiles(choice, args.slice(1), out);
    return;
  }
  const store =
    choice.exists || flags.newStore
      ? await openStore({
          databaseUrl: choice.databaseUrl,
          dataDir: choice.dataDir,
          pgPool: config.pgPool,
          groupCommit: config.sqliteGroupCommit,
        })
      : refusingStore(missingStoreProblem(choice));
  const storeConfig = { ...config, dataDir: choice.dataDir };
  try {
    // Secrets an earlier version stored in clear are sealed before the command reads them, with a key this
    // configuration already has (never one made for the pass: the servers would not have it).
    if (choice.exists && hasSealingKey(storeConfig)) {
      const sealed = await sealClearSecrets(store.db, () => sealingKey(storeConfig), carrierSecrets);
      if (sealed.carriers + sealed.pushSecrets > 0)
        note(
          `yona: sealed with the secret key what an earlier version stored in clear: ${sealed.carriers} carrier password(s), ${sealed.pushSecrets} push signing secret(s)`,
        );
    }
    await runAdminCommand(store, storeConfig, args, out);
    note(`yona: store ${choice.exists ? '' : '(new) '}${choice.description}`);
  } catch (err) {
    // An account missing from the store found is most often an account in another store: say which was read.
    if (err instanceof Error && /^no account named "[^"]*"$/.test(err.message))
      err.message += ` in the store ${choice.description}`;
    throw err;
  } finally {
    await store.close();
  }
}
