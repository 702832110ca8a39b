// The carrier protocols: each one folder under carriers/ and one entry here. An entry says everything the rest
// of Yona needs to know about a protocol: the channel it carries (domain/channels.ts: which node role runs it), the lease
// name of its shares, how its settings read (the carriers file and the store's settings document alike), its
// options on `yona admin add-carrier`, and its bundled simulator. Nothing outside carriers/ names a protocol.
import type { Registry } from 'prom-client';
import type { z } from 'zod';
import { type ChannelName, channelOf, DEFAULT_CHANNEL, isChannel } from '../domain/channels.ts';
import { ConfigError } from '../domain/errors.ts';
import { isSealedAtRest, openAtRest } from '../domain/sealed.ts';
import { readCarrierLimits, takeCarrierLimits } from './limits.ts';
import type { Role } from '../domain/roles.ts';
import type { ProtocolIngress } from './ingress.ts';
import type { ProtocolCli } from './protocol-cli.ts';
import type { ProtocolSimulator } from './protocol-simulator.ts';
import { registerSipMetrics, sipHealth } from './sip/metrics.ts';
import { createSipTrunk } from './sip/protocol.ts';
import { sipConfigFromFile, sipFileTrunk } from './sip/settings.ts';
import { smppCli } from './smpp/cli.ts';
import { SmppCarrier, type SmppCarrierConfig } from './smpp/connector.ts';
import { smppConfigFromFile, smppFileCarrier } from './smpp/settings.ts';
import { smppSimulator } from './smpp/simulator.ts';
import { sipSimulator } from './sip/simulator.ts';
import type { Carrier, CarrierConfigBase, CarrierLogger } from './types.ts';
import { UnopenedCarrier } from './unopened.ts';
import { WhatsappCloudCarrier, WHATSAPP_PROTOCOL } from './whatsapp-cloud/carrier.ts';
import { whatsappCli } from './whatsapp-cloud/cli.ts';
import { whatsappConfigFromFile, whatsappFileCarrier, type WhatsappCarrierConfig } from './whatsapp-cloud/settings.ts';
import { whatsappIngress } from './whatsapp-cloud/webhook.ts';
import { bundledWhatsAppSimulator } from './whatsapp-cloud/simulator/bundled.ts';
import { simulatorCarrier } from './whatsapp-cloud/simulator-carrier.ts';

export type { ProtocolCli } from './protocol-cli.ts';
export type { IngressAnswer, IngressEvent, IngressRequest, IngressRoute, ProtocolIngress } from './ingress.ts';
export type { BundledSimulator, ProtocolSimulator } from './protocol-simulator.ts';

/** What a protocol carries: a channel of domain/channels.ts, whose entry says which node role runs its carriers. */
export type CarrierChannel = ChannelName;

/** How one protocol makes carriers, and what the rest of Yona needs to know about it. */
export interface CarrierProtocol {
  create(config: CarrierConfigBase, logger: CarrierLogger): Carrier;
  /** The channel it carries (a registered one); the default channel ('sms') when absent. */
  channel?: ChannelName;
  /** First word of the lease of one of its carriers' shares (`KEY:NAME#i`); the protocol's name when absent. */
  shareKey?: string;
  /**
   * Its settings as written in the carriers file and kept in the store's settings document (with `name` and
   * `protocol`): a schema and what makes a carrier's config of them. Without it, the entry is the config as is.
   */
  settings?: { schema: z.ZodType; toConfig(entry: any, where: string): CarrierConfigBase };
  /**
   * Its settings that are secrets (a password): the store keeps them sealed with the secret key, and only the
   * carrier's own node opens them, to connect. The carriers file keeps them as the operator wrote them.
   */
  secrets?: readonly string[];
  /** Its options on `yona admin add-carrier`; without them the command takes `--settings JSON`. */
  cli?: ProtocolCli;
  /** The simulator `yona serve` starts in-process when no carrier is configured. */
  simulator?: ProtocolSimulator;
  /** Its webhook routes, mounted by every API node under /webhooks/<protocol>/<carrier> (carriers/ingress.ts). */
  ingress?: ProtocolIngress;
  /** Registers its own metrics once on the node's registry; `carriers` gives this node's carriers of it. */
  metrics?(registry: Registry, node: string, carriers: () => Carrier[]): void;
  /** What /healthz adds of its carriers on this node to the report of the role that runs them. */
  health?(carriers: Carrier[]): Record<string, unknown>;
}

const PROTOCOLS = new Map<string, CarrierProtocol>();
const DEFAULT_PROTOCOL = 'smpp';

/** Adds a protocol (the one line a new protocol needs); its channel must be registered first. */
export function registerProtocol(name: string, protocol: CarrierProtocol): void {
  if (protocol.channel !== undefined && !isChannel(protocol.channel))
    throw new Error(`protocol "${name}": unknown channel "${protocol.channel}" (register the channel first)`);
  PROTOCOLS.set(name, protocol);
}

registerProtocol('smpp', {
  create: (config, logger) => new SmppCarrier({ ...(config as SmppCarrierConfig), logger }),
  channel: 'sms',
  shareKey: 'bind',
  settings: { schema: smppFileCarrier, toConfig: smppConfigFromFile },
  secrets: ['password'],
  cli: smppCli,
  simulator: smppSimulator,
});

registerProtocol('sip', {
  create: createSipTrunk,
  channel: 'voice',
  shareKey: 'calls',
  settings: { schema: sipFileTrunk, toConfig: sipConfigFromFile },
  secrets: ['password'],
  simulator: sipSimulator,
  metrics: registerSipMetrics,
  health: sipHealth,
});

registerProtocol(WHATSAPP_PROTOCOL, {
  create: (config, logger) => new WhatsappCloudCarrier(config as WhatsappCarrierConfig, logger),
  channel: 'whatsapp',
  shareKey: 'whatsapp',
  settings: { schema: whatsappFileCarrier, toConfig: whatsappConfigFromFile },
  secrets: ['token', 'appSecret', 'verifyToken'],
  cli: whatsappCli,
  simulator: bundledWhatsAppSimulator(simulatorCarrier),
  ingress: whatsappIngress,
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
  const protocol = carrierProtocol(config.protocol, `carrier "${config.name}"`);
  // A carrier whose stored secret this node cannot open never connects with a wrong one: it stays down here.
  if (config.unopenedSecrets?.length)
    return new UnopenedCarrier(config, channelOf(carrierChannel(config.protocol)).payload === 'speech', logger);
  return protocol.create(config, logger);
}

/** The settings of a protocol the store keeps sealed. */
export function carrierSecrets(protocol: string | undefined): readonly string[] {
  return PROTOCOLS.get(protocolName(protocol))?.secrets ?? [];
}

/** What a carrier of this protocol carries. */
export function carrierChannel(protocol: string | undefined): ChannelName {
  return PROTOCOLS.get(protocolName(protocol))?.channel ?? DEFAULT_CHANNEL;
}

/** The node role that runs carriers of this protocol (its channel's). */
export function carrierRole(protocol: string | undefined): Role {
  return channelOf(carrierChannel(protocol)).role;
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

/**
 * A carrier as the store keeps it: its protocol and the protocol's settings as a JSON document, its secrets
 * sealed, opened here with `key` (called only when there is one to open). A secret that does not open under this
 * key (sealed by a node with another) leaves the carrier's settings marked `unopenedSecrets`, never a crash.
 */
export function carrierFromStore(
  row: { name: string; protocol: string; settings: string },
  key: () => Buffer,
): CarrierConfigBase {
  const where = `carrier "${row.name}" (yona admin add-carrier)`;
  let document: unknown;
  try {
    document = JSON.parse(row.settings);
  } catch {
    throw new ConfigError(`${where}: its settings are not a JSON document`);
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    throw new ConfigError(`${where}: its settings are not a JSON object`);
  const settings = { ...(document as Record<string, unknown>) };
  const unopened: string[] = [];
  for (const field of carrierSecrets(row.protocol)) {
    const value = settings[field];
    if (typeof value !== 'string' || !isSealedAtRest(value)) continue;
    const sealingKey = key();
    try {
      settings[field] = openAtRest(sealingKey, value);
    } catch {
      settings[field] = '';
      unopened.push(field);
    }
  }
  const config = readCarrierSettings({ ...settings, name: row.name, protocol: row.protocol }, where);
  return unopened.length ? { ...config, unopenedSecrets: unopened } : config;
}
