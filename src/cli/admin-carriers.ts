// `yona admin add-carrier | add-route | add-number | carriers`: the operator's carrier settings in the store.
// Carrier passwords are stored in clear (the connector sends them in bind_*) and never printed or logged.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, type Config } from '../config.ts';
import type { SmppCarrierConfig } from '../carriers/smpp/connector.ts';
import { checkTls } from '../carriers/smpp/settings.ts';
import { loadCarrierSetup } from '../delivery/carrier-setup.ts';
import { normalizeNumber, routePrefix } from '../delivery/routing.ts';
import { isReceiptIdMode, RECEIPT_ID_MODES, type ReceiptIdMode } from '../carriers/smpp/ids.ts';
import { LONG_MESSAGE_MODES, type LongMessageMode } from '../carriers/smpp/payload.ts';
import { findAccountByUsername } from '../store/accounts.ts';
import { addAccountNumber, setRoute, upsertCarrier } from '../store/carriers.ts';
import type { Store } from '../store/db.ts';
import { UsageError } from './usage-error.ts';

type Out = (line: string) => void;

function fail(message: string): never {
  throw new UsageError(message);
}

function whole(text: string | undefined, what: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (text === undefined || !/^\d+$/.test(text) || Number(text) < min || Number(text) > max)
    fail(`${what} must be a whole number from ${min} to ${max}, got "${text ?? ''}"`);
  return Number(text);
}

const ADD_CARRIER_USAGE =
  'usage: yona admin add-carrier NAME --host H --port P --system-id S --password PW [--system-type T] ' +
  '[--bind transceiver|tx+rx] [--binds N] [--window N] [--max-tps N] [--tls [--tls-ca CA.pem] [--tls-servername NAME]] ' +
  '[--long-messages udh|payload] [--receipt-ids as-is|submit-hex|receipt-hex|both-hex]';

/** Adds (or updates) an SMPP carrier; `yona serve` binds it on its next start. */
export async function addCarrier(store: Store, _config: Config, args: string[], out: Out): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      'system-id': { type: 'string' },
      password: { type: 'string' },
      'system-type': { type: 'string' },
      bind: { type: 'string' },
      binds: { type: 'string' },
      window: { type: 'string' },
      'max-tps': { type: 'string' },
      tls: { type: 'boolean', default: false },
      'tls-ca': { type: 'string' },
      'tls-servername': { type: 'string' },
      'long-messages': { type: 'string' },
      'receipt-ids': { type: 'string' },
    },
  });
  const [name] = positionals;
  if (!name || !values.host || !values.port || !values['system-id'] || values.password === undefined)
    fail(ADD_CARRIER_USAGE);
  if (!/^[\w.-]{1,40}$/.test(name))
    fail(`carrier NAME may hold letters, digits, '.', '-' and '_' (at most 40), got "${name}"`);
  const bind = values.bind ?? 'transceiver';
  if (bind !== 'transceiver' && bind !== 'tx+rx') fail(`--bind must be transceiver or tx+rx, got "${bind}"`);
  if (values['system-id'].length > 15) fail('--system-id may be at most 15 characters (SMPP 3.4)');
  if (values.password.length > 8)
    out('note: SMPP 3.4 passwords are at most 8 characters; this carrier may refuse a longer one');
  const longMessages = values['long-messages'] ?? 'udh';
  if (!LONG_MESSAGE_MODES.includes(longMessages as LongMessageMode))
    fail(`--long-messages must be udh or payload, got "${longMessages}"`);
  const receiptIds = values['receipt-ids'] ?? 'as-is';
  if (!isReceiptIdMode(receiptIds))
    fail(`--receipt-ids must be one of ${RECEIPT_ID_MODES.join(', ')}, got "${receiptIds}"`);
  if (!values.tls && (values['tls-ca'] !== undefined || values['tls-servername'] !== undefined))
    fail('--tls-ca and --tls-servername need --tls');
  // Kept as an absolute path: yona serve may start in another directory.
  const tlsCa = values['tls-ca'] === undefined ? null : resolve(values['tls-ca']);
  const tlsServername = values['tls-servername'] || null;
  try {
    checkTls({ tls: values.tls!, tlsCa: tlsCa ?? undefined }, '--tls-ca');
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
  const carrier = {
    name,
    host: values.host,
    port: whole(values.port, '--port', 1, 65535),
    systemId: values['system-id'],
    password: values.password,
    systemType: values['system-type'] ?? '',
    bindMode: bind as 'transceiver' | 'tx+rx',
    binds: values.binds === undefined ? 1 : whole(values.binds, '--binds', 1, 64),
    windowSize: values.window === undefined ? 10 : whole(values.window, '--window', 1, 10_000),
    maxTps: values['max-tps'] === undefined ? 0 : whole(values['max-tps'], '--max-tps', 0),
    tls: values.tls!,
    tlsCa,
    tlsServername,
    longMessages: longMessages as LongMessageMode,
    receiptIds,
  };
  const created = await upsertCarrier(store.db, carrier, Date.now());
  out(`${created ? 'added' : 'updated'} carrier ${name}: ${describe(carrier)}; restart yona serve to bind it`);
}

interface Described {
  host: string;
  port: number;
  systemId: string;
  bindMode: string;
  binds: number;
  windowSize: number;
  maxTps: number;
  tls: boolean;
  tlsCa?: string | null;
  tlsServername?: string | null;
  longMessages?: LongMessageMode;
  receiptIds?: ReceiptIdMode;
}

function describe(c: Described): string {
  const tls = !c.tls
    ? ''
    : ` (TLS${c.tlsCa ? `, CA ${c.tlsCa}` : ''}${c.tlsServername ? `, certificate name ${c.tlsServername}` : ''})`;
  return (
    `${c.host}:${c.port}${tls}, system_id ${c.systemId}, ${c.bindMode} x${c.binds}, window ${c.windowSize}, ` +
    `${c.maxTps > 0 ? `${c.maxTps} submits/s` : 'no rate limit'}` +
    `${c.longMessages === 'payload' ? ', long messages in message_payload' : ''}` +
    `${c.receiptIds && c.receiptIds !== 'as-is' ? `, receipt ids ${c.receiptIds}` : ''}`
  );
}

/** Routes destinations starting with PREFIX ('default' for all others) to a configured carrier. */
export async function addRoute(store: Store, config: Config, args: string[], out: Out): Promise<void> {
  const [rawPrefix, carrier] = args;
  if (rawPrefix === undefined || !carrier)
    fail('usage: yona admin add-route PREFIX|default CARRIER (PREFIX in international digits, e.g. 97250)');
  const prefix = routePrefix(rawPrefix);
  if (!/^\d*$/.test(prefix)) fail(`PREFIX must be international digits like 97250 (or "default"), got "${rawPrefix}"`);
  const setup = await loadCarrierSetup(store.db, config.carriersFile);
  if (!setup.carriers.some((c) => c.name === carrier))
    fail(`no carrier named "${carrier}" (add it with yona admin add-carrier)`);
  await setRoute(store.db, prefix, carrier, Date.now());
  out(
    `${prefix === '' ? 'default route' : `destinations starting ${prefix}`} -> ${carrier}; restart yona serve to apply`,
  );
}

/** Gives an account an inbound number: SMS to it show in the account's `incoming` and its push feed. */
export async function addNumber(store: Store, _config: Config, args: string[], out: Out): Promise<void> {
  const [username, raw] = args;
  if (!username || !raw) fail('usage: yona admin add-number USERNAME NUMBER');
  const account = (await findAccountByUsername(store.db, username)) ?? fail(`no account named "${username}"`);
  const number = normalizeNumber(raw);
  if (!/^\d{3,15}$/.test(number)) fail(`NUMBER must be a phone number or short code, got "${raw}"`);
  if (!(await addAccountNumber(store.db, account.id, number, Date.now())))
    fail(`number ${number} already belongs to another account`);
  out(`inbound SMS to ${number} go to ${account.username}`);
}

/** Lists carriers (passwords never shown) and routes, as the next `yona serve` would use them. */
export async function listCarriersCommand(store: Store, config: Config, _args: string[], out: Out): Promise<void> {
  const setup = await loadCarrierSetup(store.db, config.carriersFile);
  if (setup.carriers.length === 0) out('no carrier configured: yona serve starts the bundled SMSC simulator');
  for (const c of setup.carriers) {
    if ((c.protocol ?? 'smpp') !== 'smpp') {
      out(`carrier ${c.name}: protocol ${c.protocol}`);
      continue;
    }
    const smpp = c as SmppCarrierConfig;
    out(`carrier ${c.name}: ${describe({ ...smpp, maxTps: smpp.maxSubmitsPerSecond, tls: smpp.tls })}`);
  }
  for (const r of setup.routes) out(`route ${r.prefix === '' ? 'default' : r.prefix} -> ${r.carrier}`);
}
