// A WhatsApp Cloud API carrier on `yona admin add-carrier NAME --protocol whatsapp-cloud`: its options into the
// settings document (the carriers file's keys), and the line `yona admin carriers` prints (never its secrets).
import { ConfigError } from '../../domain/errors.ts';
import type { CliValues, ProtocolCli } from '../protocol-cli.ts';
import type { CarrierConfigBase } from '../types.ts';
import { MAX_MESSAGES_PER_SECOND } from './settings.ts';

function whole(text: string, what: string, min: number, max: number): number {
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max)
    throw new ConfigError(`${what} must be a whole number from ${min} to ${max}, got "${text}"`);
  return Number(text);
}

function settings(values: CliValues): Record<string, unknown> {
  const text = (key: string) => values[key] as string | undefined;
  const number = text('business-number') ?? '';
  if (!/^\d{8,15}$/.test(number))
    throw new ConfigError(
      `--business-number must be international digits without +, like 972771234567, got "${number}"`,
    );
  const document: Record<string, unknown> = {
    businessNumber: number,
    phoneNumberId: text('phone-number-id'),
    wabaId: text('waba-id'),
    token: text('token'),
    appSecret: text('app-secret'),
    verifyToken: text('verify-token'),
    graphUrl: text('graph-url'),
    messagesPerSecond:
      text('messages-per-second') === undefined
        ? undefined
        : whole(text('messages-per-second')!, '--messages-per-second', 1, MAX_MESSAGES_PER_SECOND),
  };
  return Object.fromEntries(Object.entries(document).filter(([, v]) => v !== undefined));
}

function describe(config: CarrierConfigBase): string {
  const c = config as CarrierConfigBase & {
    businessNumber: string;
    phoneNumberId: string;
    graphUrl: string;
    messagesPerSecond: number;
  };
  return `WhatsApp ${c.businessNumber} (phone number id ${c.phoneNumberId}) via ${c.graphUrl}, ${c.messagesPerSecond} messages/s`;
}

export const whatsappCli: ProtocolCli = {
  usage:
    '--business-number 972XXXXXXXXX --phone-number-id ID --waba-id ID --token T --app-secret S --verify-token V ' +
    '[--graph-url URL] [--messages-per-second N]',
  options: {
    'business-number': { type: 'string' },
    'phone-number-id': { type: 'string' },
    'waba-id': { type: 'string' },
    token: { type: 'string' },
    'app-secret': { type: 'string' },
    'verify-token': { type: 'string' },
    'graph-url': { type: 'string' },
    'messages-per-second': { type: 'string' },
  },
  required: ['business-number', 'phone-number-id', 'waba-id', 'token', 'app-secret', 'verify-token'],
  settings,
  describe,
};
