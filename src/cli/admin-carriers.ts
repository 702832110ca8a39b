// `yona admin add-carrier | add-route | add-number | carriers`: the operator's carrier settings in the store.
// A carrier's options are its protocol's (carriers/index.ts); its settings are stored as its protocol reads them,
// its secrets (a password) sealed with the secret key (the connector opens them to bind), never printed or logged.
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { ConfigError, type Config } from '../config.ts';
import { carrierProtocol, protocolName, protocols, readCarrierSettings } from '../carriers/index.ts';
import { loadCarrierSetup } from '../delivery/carrier-setup.ts';
import { sealingKey } from '../secret-key.ts';
import { findAccountByUsername } from '../store/accounts.ts';
import { runForOperator, runOperation } from '../operations/execute.ts';
import { addInboundNumber } from '../operations/operator-changes.ts';
import { removeCarrier as removeCarrierOperation, setCarrier } from '../operations/carrier-changes.ts';
import { operatorApp, worked } from './operator-app.ts';
import type { Store } from '../store/engine/db.ts';
import { LIMIT_OPTIONS, LIMIT_USAGE, limitSettings } from '../carriers/limits.ts';
import type { CarrierConfigBase } from '../carriers/types.ts';
import { calendarDay } from '../domain/dates.ts';
import { carrierUsageOn } from '../store/carrier-usage.ts';
import { trunkHealthLines } from './trunk-health.ts';
import { didYouMean } from './help.ts';
import { parseArgsProblem, UsageError } from './usage-error.ts';

type Out = (line: string) => void;

function fail(message: string): never {
  throw new UsageError(message);
}

// A ConfigError (an option or setting the protocol refuses) is a usage error here.
function usageOnConfigError<T>(run: () => T): T {
  try {
    return run();
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
}

/** The usage line of add-carrier for one protocol (its own options) or, without one, for every protocol. */
function addCarrierUsage(only?: string): string {
  const lines = protocols()
    .filter(([name]) => only === undefined || name === only)
    .map(([name, p]) => {
      const protocol = name === protocolName(undefined) ? `[--protocol ${name}]` : `--protocol ${name}`;
      return `usage: yona admin add-carrier NAME ${protocol} ${p.cli?.usage ?? '--settings JSON'} ${LIMIT_USAGE}`;
    });
  return lines.join('\n');
}

// The value of --protocol among the arguments (the protocol decides the other options).
function protocolArg(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--protocol') return args[i + 1];
    if (args[i].startsWith('--protocol=')) return args[i].slice('--protocol='.length);
  }
  return undefined;
}

// A settings document given whole with --settings (a protocol without options of its own).
function settingsDocument(text: string | undefined): Record<string, unknown> {
  let document: unknown;
  try {
    document = JSON.parse(text ?? '{}');
  } catch {
    fail('--settings must be a JSON object');
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    fail('--settings must be a JSON object');
  return document as Record<string, unknown>;
}

// A carrier's daily cap and price, as `yona admin carriers` and add-carrier print them.
function describeLimits(c: CarrierConfigBase): string {
  const cap = c.dailyCap === undefined ? '' : `, daily cap ${c.dailyCap} parts`;
  const cost = c.costPerPart === undefined ? '' : `, ${c.costPerPart} agorot per part`;
  return `${cap}${cost}`;
}

// The options of add-carrier; an unknown one names the nearest (a mistyped --daily-cap, say).
function parseCarrierArgs(args: string[], options: NonNullable<ParseArgsConfig['options']>) {
  try {
    return parseArgs({ args, allowPositionals: true, options });
  } catch (err) {
    const problem = parseArgsProblem(err);
    const unknown = /^unknown option (--[^\s;]+)$/.exec(problem?.message ?? '')?.[1];
    if (unknown)
      fail(
        `unknown option ${unknown}${didYouMean(
          unknown,
          Object.keys(options).map((o) => `--${o}`),
        )}`,
      );
    throw problem ?? err;
  }
}

/** Adds (or updates) a carrier of any protocol; `yona serve` binds it on its next start. */
export async function addCarrier(store: Store, config: Config, args: string[], out: Out): Promise<void> {
  const name = protocolName(protocolArg(args));
  const protocol = usageOnConfigError(() => carrierProtocol(name, '--protocol'));
  const cli = protocol.cli;
  const options: NonNullable<ParseArgsConfig['options']> = {
    protocol: { type: 'string' },
    ...(cli ? cli.options : { settings: { type: 'string' } }),
    ...LIMIT_OPTIONS,
  };
  const parsed = parseCarrierArgs(args, options);
  const values = parsed.values as Record<string, string | boolean | undefined>;
  const { positionals } = parsed;
  const [carrierName] = positionals;
  if (!carrierName || cli?.required.some((option) => values[option] === undefined)) fail(addCarrierUsage(name));
  if (!/^[\w.-]{1,40}$/.test(carrierName))
    fail(`carrier NAME may hold letters, digits, '.', '-' and '_' (at most 40), got "${carrierName}"`);
  const settings = {
    ...(cli
      ? usageOnConfigError(() => cli.settings(values, out))
      : settingsDocument(values.settings as string | undefined)),
    ...usageOnConfigError(() => limitSettings(values)),
  };
  // Read back as `yona serve` will read it: a setting its protocol refuses is refused now.
  const carrier = usageOnConfigError(() =>
    readCarrierSettings({ ...settings, name: carrierName, protocol: name }, `carrier "${carrierName}"`),
  );
  const reply = await runForOperator(operatorApp(store, config), setCarrier, {
    name: carrierName,
    protocol: name,
    settings,
  });
  const { created } = worked(reply);
  const described = `${cli ? cli.describe(carrier) : `protocol ${name}`}${describeLimits(carrier)}`;
  out(`${created ? 'added' : 'updated'} carrier ${carrierName}: ${described}; running nodes bind it within 5 s`);
}

/** Gives an account an inbound number: SMS to it show in the account's `incoming` and its push feed. */
export async function addNumber(store: Store, config: Config, args: string[], out: Out): Promise<void> {
  const [username, raw] = args;
  if (!username || !raw) fail('usage: yona admin add-number USERNAME NUMBER');
  const account = (await findAccountByUsername(store.db, username)) ?? fail(`no account named "${username}"`);
  const app = operatorApp(store, config);
  const { number } = worked(await runOperation(app, account, addInboundNumber, { number: raw }, { via: 'operator' }));
  out(`inbound SMS to ${number} go to ${account.username}`);
}

const CARRIERS_USAGE = 'yona admin carriers [--status [--json]]';

/**
 * Lists carriers (passwords never shown) and routes, as the next `yona serve` would use them; with `--status`,
 * how each is doing on the running nodes (admin-carrier-status.ts).
 */
export async function listCarriersCommand(store: Store, config: Config, args: string[], out: Out): Promise<void> {
  const unknown = args.find((a) => a !== '--status' && a !== '--json');
  if (unknown) fail(`unknown ${unknown.startsWith('--') ? 'option' : 'argument'} ${unknown}; usage: ${CARRIERS_USAGE}`);
  if (args.includes('--json') && !args.includes('--status'))
    fail(`--json goes with --status; usage: ${CARRIERS_USAGE}`);
  if (args.includes('--status')) {
    const { carrierStatusCommand } = await import('./admin-carrier-status.ts');
    return carrierStatusCommand(store, config, args.includes('--json'), out);
  }
  const setup = await loadCarrierSetup(store.db, config.carriersFile, () => sealingKey(config));
  if (setup.carriers.length === 0)
    out(
      config.delivery.simulators
        ? 'no carrier configured: yona serve starts the bundled simulators (nothing leaves this machine)'
        : 'no carrier configured and YONA_SIMULATORS=off: every send is refused at accept (5)',
    );
  const today = calendarDay(Date.now(), config.defaultTimeZone);
  const usage = setup.carriers.length ? await carrierUsageOn(store.db, today) : new Map<string, number>();
  for (const c of setup.carriers) {
    const { cli } = carrierProtocol(c.protocol, `carrier "${c.name}"`);
    const used = usage.get(c.name) ?? 0;
    const day =
      c.dailyCap === undefined
        ? `; today ${used} parts`
        : `; today ${used} of ${c.dailyCap} parts${used >= c.dailyCap ? ' (capped)' : ''}`;
    const unopened = c.unopenedSecrets?.length
      ? `; its ${c.unopenedSecrets.join(', ')} is sealed with another secret key than this one's`
      : '';
    out(
      `carrier ${c.name}: ${cli ? cli.describe(c) : `protocol ${c.protocol}`}${describeLimits(c)}${day} (${today})${unopened}`,
    );
  }
  for (const r of setup.routes) {
    const filters = [r.account && `account ${r.account}`, r.source && `sender ${r.source}`, r.channel].filter(Boolean);
    out(
      `route ${r.prefix === '' ? 'default' : r.prefix}${filters.length ? ` [${filters.join(', ')}]` : ''} -> ${r.carrier}`,
    );
  }
  // How the running nodes find their voice trunks now (each trunk's last OPTIONS check).
  for (const line of await trunkHealthLines(config)) out(line);
}

/** Removes a carrier from the store; running nodes unbind it once its submits in flight are answered. */
export async function removeCarrier(store: Store, config: Config, args: string[], out: Out): Promise<void> {
  const [name] = args;
  if (!name) fail('usage: yona admin remove-carrier NAME');
  const setup = await loadCarrierSetup(store.db, config.carriersFile, () => sealingKey(config));
  const routed = setup.routes.filter((r) => r.carrier.split(',').some((c) => c.split(':')[0].trim() === name));
  if (routed.length > 0)
    fail(`carrier "${name}" is on ${routed.length} route(s): change them first (yona admin carriers lists them)`);
  worked(await runForOperator(operatorApp(store, config), removeCarrierOperation, { name }));
  out(`removed carrier ${name}; running nodes unbind it within 5 s, after its submits in flight are answered`);
}
