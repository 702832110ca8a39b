// An SMPP carrier on `yona admin add-carrier`: its options, checked, into the settings document (the carriers
// file's keys), and the line `yona admin carriers` prints for it. Its password is never printed.
import { resolve } from 'node:path';
import { ConfigError } from '../../domain/errors.ts';
import type { CliValues, ProtocolCli } from '../protocol-cli.ts';
import type { SmppCarrierConfig } from './carrier-config.ts';
import { isReceiptIdMode, RECEIPT_ID_MODES } from './ids.ts';
import { LONG_MESSAGE_MODES, type LongMessageMode } from './payload.ts';
import { checkTls } from './settings.ts';

function whole(text: string | undefined, what: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (text === undefined || !/^\d+$/.test(text) || Number(text) < min || Number(text) > max)
    throw new ConfigError(`${what} must be a whole number from ${min} to ${max}, got "${text ?? ''}"`);
  return Number(text);
}

function settings(values: CliValues, note: (line: string) => void): Record<string, unknown> {
  const text = (key: string) => values[key] as string | undefined;
  const bind = text('bind') ?? 'transceiver';
  if (bind !== 'transceiver' && bind !== 'tx+rx')
    throw new ConfigError(`--bind must be transceiver or tx+rx, got "${bind}"`);
  const systemId = text('system-id') ?? '';
  if (systemId.length > 15) throw new ConfigError('--system-id may be at most 15 characters (SMPP 3.4)');
  const password = text('password') ?? '';
  if (password.length > 8)
    note('note: SMPP 3.4 passwords are at most 8 characters; this carrier may refuse a longer one');
  const longMessages = text('long-messages') ?? 'udh';
  if (!LONG_MESSAGE_MODES.includes(longMessages as LongMessageMode))
    throw new ConfigError(`--long-messages must be udh or payload, got "${longMessages}"`);
  const receiptIds = text('receipt-ids') ?? 'as-is';
  if (!isReceiptIdMode(receiptIds))
    throw new ConfigError(`--receipt-ids must be one of ${RECEIPT_ID_MODES.join(', ')}, got "${receiptIds}"`);
  const tls = values.tls === true;
  if (!tls && (text('tls-ca') !== undefined || text('tls-servername') !== undefined))
    throw new ConfigError('--tls-ca and --tls-servername need --tls');
  // Kept as an absolute path: yona serve may start in another directory.
  const tlsCa = text('tls-ca') === undefined ? undefined : resolve(text('tls-ca')!);
  checkTls({ tls, tlsCa }, '--tls-ca');
  const document: Record<string, unknown> = {
    host: text('host'),
    port: whole(text('port'), '--port', 1, 65535),
    systemId,
    password,
    systemType: text('system-type') || undefined,
    bindMode: bind,
    binds: text('binds') === undefined ? 1 : whole(text('binds'), '--binds', 1, 64),
    windowSize: text('window') === undefined ? 10 : whole(text('window'), '--window', 1, 10_000),
    maxSubmitsPerSecond: text('max-tps') === undefined ? 0 : whole(text('max-tps'), '--max-tps', 0),
    tls,
    tlsCa,
    tlsServername: text('tls-servername') || undefined,
    longMessages,
    receiptIds,
  };
  return Object.fromEntries(Object.entries(document).filter(([, v]) => v !== undefined));
}

function describe(config: SmppCarrierConfig): string {
  const c = config;
  const tls = !c.tls
    ? ''
    : ` (TLS${c.tlsCa ? `, CA ${c.tlsCa}` : ''}${c.tlsServername ? `, certificate name ${c.tlsServername}` : ''})`;
  return (
    `${c.host}:${c.port}${tls}, system_id ${c.systemId}, ${c.bindMode} x${c.binds}, window ${c.windowSize}, ` +
    `${c.maxSubmitsPerSecond > 0 ? `${c.maxSubmitsPerSecond} submits/s` : 'no rate limit'}` +
    `${c.longMessages === 'payload' ? ', long messages in message_payload' : ''}` +
    `${c.receiptIds && c.receiptIds !== 'as-is' ? `, receipt ids ${c.receiptIds}` : ''}`
  );
}

export const smppCli: ProtocolCli = {
  usage:
    '--host H --port P --system-id S --password PW [--system-type T] [--bind transceiver|tx+rx] [--binds N] ' +
    '[--window N] [--max-tps N] [--tls [--tls-ca CA.pem] [--tls-servername NAME]] [--long-messages udh|payload] ' +
    '[--receipt-ids as-is|submit-hex|receipt-hex|both-hex]',
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
  required: ['host', 'port', 'system-id', 'password'],
  settings,
  describe: (config) => describe(config as SmppCarrierConfig),
};
