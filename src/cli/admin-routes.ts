// `yona admin add-route | remove-route | route-test`: routes in the store, and a dry run of which carriers a
// message would take. A running `yona serve` picks a change up within seconds (delivery/carriers.ts).
import { parseArgs } from 'node:util';
import type { Config } from '../config.ts';
import { loadCarrierSetup } from '../delivery/carrier-setup.ts';
import { sealingKey } from '../secret-key.ts';
import { carrierList, routePrefix } from '../delivery/routing.ts';
import { testRoute } from '../delivery/route-test.ts';
import { describeRoute } from '../domain/route-test.ts';
import { channelNames, channelOf, isChannel } from '../domain/channels.ts';
import { ConfigError } from '../domain/errors.ts';
import { findAccountByUsername } from '../store/accounts.ts';
import { removeCarrierRoute, setCarrierRoute } from '../operations/carrier-changes.ts';
import { runForOperator } from '../operations/execute.ts';
import { operatorApp, worked } from './operator-app.ts';
import type { Store } from '../store/engine/db.ts';
import { UsageError } from './usage-error.ts';

type Out = (line: string) => void;

function fail(message: string): never {
  throw new UsageError(message);
}

const FILTERS = {
  account: { type: 'string' },
  source: { type: 'string' },
  channel: { type: 'string' },
} as const;

// The channels --channel takes, as usage texts write them ('sms|voice').
const channelChoice = () => channelNames().join('|');

// A --channel value checked against the channels registered.
function channelOption(channel: string): string {
  if (!isChannel(channel)) fail(`--channel must be ${channelNames().join(' or ')}, got "${channel}"`);
  return channel;
}

// The filters of a route as given on the command line, checked ('' when not given).
async function filtersOf(
  store: Store,
  rawPrefix: string,
  values: { account?: string; source?: string; channel?: string },
): Promise<{ prefix: string; account: string; source: string; channel: string }> {
  // An empty PREFIX would be the default route, every destination: that takes the word "default", never a blank.
  if (rawPrefix.trim() === '')
    fail('PREFIX is empty: give international digits like 97250, or "default" for the route every destination takes');
  const prefix = routePrefix(rawPrefix);
  if (!/^\d*$/.test(prefix)) fail(`PREFIX must be international digits like 97250 (or "default"), got "${rawPrefix}"`);
  const channel = values.channel === undefined || values.channel === '' ? '' : channelOption(values.channel);
  const account = values.account ?? '';
  if (account !== '' && !(await findAccountByUsername(store.db, account))) fail(`no account named "${account}"`);
  return { prefix, account, source: values.source ?? '', channel };
}

/** Routes destinations starting with PREFIX (and matching the filters) to a list of configured carriers. */
export async function addRoute(store: Store, config: Config, args: string[], out: Out): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: FILTERS });
  const [rawPrefix, ...carriers] = positionals;
  if (rawPrefix === undefined || carriers.length === 0)
    fail(
      'usage: yona admin add-route PREFIX|default CARRIER[:WEIGHT]... [--account USERNAME] [--source SENDER] ' +
        `[--channel ${channelChoice()}] (PREFIX in international digits, e.g. 97250; carriers in failover order)`,
    );
  const filters = await filtersOf(store, rawPrefix, values);
  const spec = carriers.join(',');
  let list: ReturnType<typeof carrierList>;
  try {
    list = carrierList(spec);
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
  const setup = await loadCarrierSetup(store.db, config.carriersFile, () => sealingKey(config));
  for (const c of list) {
    if (!setup.carriers.some((known) => known.name === c.name))
      fail(`no carrier named "${c.name}" (add it with yona admin add-carrier)`);
  }
  if (new Set(list.map((c) => c.name)).size !== list.length) fail('a carrier may appear once in a route');
  worked(await runForOperator(operatorApp(store, config), setCarrierRoute, { ...filters, carrier: spec }));
  out(`${describeRoute(filters)} -> ${list.map((c) => c.name).join(', then ')}; running nodes apply it within 5 s`);
}

/** Removes the route with exactly these prefix and filters. */
export async function removeRoute(store: Store, config: Config, args: string[], out: Out): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: FILTERS });
  const [rawPrefix] = positionals;
  if (rawPrefix === undefined)
    fail(
      `usage: yona admin remove-route PREFIX|default [--account USERNAME] [--source SENDER] [--channel ${channelChoice()}]`,
    );
  const filters = await filtersOf(store, rawPrefix, values);
  const reply = await runForOperator(operatorApp(store, config), removeCarrierRoute, filters);
  if (reply.status !== 0) fail(`no route for ${describeRoute(filters)}`);
  out(`removed the route for ${describeRoute(filters)}; running nodes apply it within 5 s`);
}

/** Which route and carriers a message would take (a dry run: nothing is sent); the console's form asks the same. */
export async function routeTest(store: Store, config: Config, args: string[], out: Out): Promise<void> {
  const { values } = parseArgs({ args, options: { ...FILTERS, to: { type: 'string' } } });
  if (!values.to)
    fail(
      `usage: yona admin route-test --to PHONE [--account USERNAME] [--source SENDER] [--channel ${channelChoice()}]`,
    );
  const answer = await testRoute(store.db, config, {
    to: values.to,
    account: values.account,
    source: values.source,
    channel: values.channel,
  });
  if (answer.kind === 'problem') fail(answer.problem);
  const { nouns } = channelOf(answer.channel);
  if (answer.kind === 'simulator')
    out("no carrier configured: yona serve's bundled simulator takes it (nothing leaves this machine)");
  else if (answer.kind === 'refused-no-carrier')
    out('no carrier configured and YONA_SIMULATORS=off: such a send is refused at accept (5)');
  else if (answer.kind === 'refused-no-channel-carrier')
    out(`no ${nouns.carrier} configured: such a send is refused at accept (5)`);
  else if (answer.kind === 'carriers') {
    const { route } = answer;
    out(
      `route: ${route ? `${describeRoute(route)} -> ${route.carrier}` : 'none matches; the first carrier configured'}`,
    );
    out(`${nouns.carriers}, in the order tried: ${answer.carriers.join(', ')}`);
  }
}
