// The carrier protocols: each one folder under carriers/ and one entry here. An entry says everything the rest
// of Yona needs to know about a protocol: whether it carries SMS or voice (which node role runs it), the lease
// name of its shares, how its settings read (the carriers file and the store's settings document alike), its
// options on `yona admin add-carrier`, and its bundled simulator. Nothing outside carriers/ names a protocol.
import type { z } from 'zod';
import { ConfigError } from '../domain/errors.ts';
import { readCarrierLimits, takeCarrierLimits } from './limits.ts';
import type { Role } from '../domain/roles.ts';
import type { ProtocolCli } from './protocol-cli.ts';
import type { ProtocolSimulator } from './protocol-simulator.ts';
import { SipCarrier, type SipTrunkConfig } from './sip/connector.ts';
import { sipConfigFromFile, sipFileTrunk } from './sip/settings.ts';
import { smppCli } from './smpp/cli.ts';
import { SmppCarrier, type SmppCarrierConfig } from './smpp/connector.ts';
import { smppConfigFromFile, smppFileCarrier } from './smpp/settings.ts';
import { smppSimulator } from './smpp/simulator.ts';
import { sipSimulator } from './sip/simulator.ts';
import type { Carrier, CarrierConfigBase, CarrierLogger } from './types.ts';

export type { ProtocolCli } from './protocol-cli.ts';
export type { BundledSimulator, ProtocolSimulator } from './protocol-simulator.ts';

/** What a protocol carries: SMS carriers run on dispatcher nodes, voice trunks on voice nodes. */
export type CarrierChannel = 'sms' | 'voice';

/** How one protocol makes carriers, and what the rest of Yona needs to know about it. */
export interface CarrierProtocol {
  create(config: CarrierConfigBase, logger: CarrierLogger): Carrier;
  /** 'sms' when absent. */
  channel?: CarrierChannel;
  /** First word of the lease of one of its carriers' shares (`KEY:NAME#i`); the protocol's name when absent. */
  shareKey?: string;
  /**
   * Its settings as written in the carriers file and kept in the store's settings document (with `name` and
   * `protocol`): a schema and what makes a carrier's config of them. Without it, the entry is the config as is.
   */
  settings?: { schema: z.ZodType; toConfig(entry: any, where: string): CarrierConfigBase };
  /** Its options on `yona admin add-carrier`; without them the command takes `--settings JSON`. */
  cli?: ProtocolCli;
  /** The simulator `yona serve` starts in-process when no carrier is configured. */
  simulator?: ProtocolSimulator;
}

const PROTOCOLS = new Map<string, CarrierProtocol>();
const DEFAULT_PROTOCOL = 'smpp';

/** Adds a protocol (the one line a new protocol needs). */
export function registerProtocol(name: string, protocol: CarrierProtocol): void {
  PROTOCOLS.set(name, protocol);
}

registerProtocol('smpp', {
  create: (config, logger) => new SmppCarrier({ ...(config as SmppCarrierConfig), logger }),
  channel: 'sms',
  shareKey: 'bind',
  settings: { schema: smppFileCarrier, toConfig: smppConfigFromFile },
  cli: smppCli,
  simulator: smppSimulator,
});

registerProtocol('sip', {
  create: (config, logger) => new SipCarrier(config as SipTrunkConfig, undefined, logger),
  channel: 'voice',
  shareKey: 'calls',
  settings: { schema: sipFileTrunk, toConfig: sipConfigFromFile },
  simulator: sipSimulator,
});

/** The name a carrier's settings give their protocol (the default when they name none). */
export function protocolName(name: string | undefined): string {
  return name ?? DEFAULT_PROTOCOL;
}

/** The protocol a carrier's settings name; a ConfigError for one nobody registered. */
export function carrierProtocol(name: string | undefined, where: string): CarrierProtocol {
  const protocol = PROTOCOLS.get(protocolName(name));
  if (!protocol)
    throw new ConfigError(`${where}: unknown protocol "${name}" (known: ${[...PROTOCOLS.keys()].join(', ')})`);
  return protocol;
}

/** Every registered protocol, in registration order. */
export function protocols(): Array<[string, CarrierProtocol]> {
  return [...PROTOCOLS];
}

/** A carrier for these settings, speaking their protocol; `logger` is the carrier's own. */
export function createCarrier(config: CarrierConfigBase, logger: CarrierLogger): Carrier {
  return carrierProtocol(config.protocol, `carrier "${config.name}"`).create(config, logger);
}

/** What a carrier of this protocol carries. */
export function carrierChannel(protocol: string | undefined): CarrierChannel {
  return PROTOCOLS.get(protocolName(protocol))?.channel ?? 'sms';
}

/** The node role that runs carriers of this protocol. */
export function carrierRole(protocol: string | undefined): Role {
  return carrierChannel(protocol) === 'voice' ? 'voice' : 'dispatcher';
}

/** The first word of the leases of a carrier's shares. */
export function shareKey(protocol: string | undefined): string {
  const name = protocolName(protocol);
  return PROTOCOLS.get(name)?.shareKey ?? name;
}

/** The lease prefixes (`KEY:`) of the shares of every protocol a role runs. */
export function sharePrefixes(role: Role): string[] {
  return [...PROTOCOLS.keys()].filter((p) => carrierRole(p) === role).map((p) => `${shareKey(p)}:`);
}

/** A carrier's settings read by its protocol (`entry` holds name, protocol and the protocol's own settings). */
export function readCarrierSettings(
  entry: Record<string, unknown> & { name: string; protocol?: string },
  where: string,
): CarrierConfigBase {
  const { settings } = carrierProtocol(entry.protocol, where);
  // The settings common to every protocol (daily cap, cost per part) are read apart from the protocol's own.
  const { limits, rest } = takeCarrierLimits(entry);
  const common = readCarrierLimits(limits, where);
  if (!settings) return { ...rest, ...common };
  const parsed = settings.schema.safeParse(rest);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`${where}: ${issue.path.join('.') || 'settings'}: ${issue.message}`);
  }
  return { ...settings.toConfig(parsed.data, where), ...common };
}

/** A carrier as the store keeps it: its protocol and the protocol's settings as a JSON document. */
export function carrierFromStore(row: { name: string; protocol: string; settings: string }): CarrierConfigBase {
  const where = `carrier "${row.name}" (yona admin add-carrier)`;
  let document: unknown;
  try {
    document = JSON.parse(row.settings);
  } catch {
    throw new ConfigError(`${where}: its settings are not a JSON document`);
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    throw new ConfigError(`${where}: its settings are not a JSON object`);
  return readCarrierSettings({ ...document, name: row.name, protocol: row.protocol }, where);
}
