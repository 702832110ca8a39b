// The carrier protocols: each one folder under carriers/ and one entry here. `createCarrier` builds a carrier
// from its settings by their `protocol` (SMPP when absent); a protocol that reads carriers-file entries says how.
import type { z } from 'zod';
import { ConfigError } from '../domain/errors.ts';
import { SipCarrier, type SipTrunkConfig } from './sip/connector.ts';
import { sipConfigFromFile, sipFileTrunk } from './sip/settings.ts';
import { SmppCarrier, type SmppCarrierConfig } from './smpp/connector.ts';
import { smppConfigFromFile, smppFileCarrier } from './smpp/settings.ts';
import type { Carrier, CarrierConfigBase, CarrierLogger } from './types.ts';

/** How one protocol makes carriers, and (optionally) reads its entries of the carriers file. */
export interface CarrierProtocol {
  create(config: CarrierConfigBase, logger: CarrierLogger): Carrier;
  file?: { schema: z.ZodType; toConfig(entry: any, where: string): CarrierConfigBase };
}

const PROTOCOLS = new Map<string, CarrierProtocol>();

/** Adds a protocol (the one line a new protocol needs). */
export function registerProtocol(name: string, protocol: CarrierProtocol): void {
  PROTOCOLS.set(name, protocol);
}

registerProtocol('smpp', {
  create: (config, logger) => new SmppCarrier({ ...(config as SmppCarrierConfig), logger }),
  file: { schema: smppFileCarrier, toConfig: smppConfigFromFile },
});

registerProtocol('sip', {
  create: (config, logger) => new SipCarrier(config as SipTrunkConfig, undefined, logger),
  file: { schema: sipFileTrunk, toConfig: sipConfigFromFile },
});

/** The protocol a carrier's settings name; a ConfigError for one nobody registered. */
export function carrierProtocol(name: string | undefined, where: string): CarrierProtocol {
  const protocol = PROTOCOLS.get(name ?? 'smpp');
  if (!protocol)
    throw new ConfigError(`${where}: unknown protocol "${name}" (known: ${[...PROTOCOLS.keys()].join(', ')})`);
  return protocol;
}

/** A carrier for these settings, speaking their protocol; `logger` is the carrier's own. */
export function createCarrier(config: CarrierConfigBase, logger: CarrierLogger): Carrier {
  return carrierProtocol(config.protocol, `carrier "${config.name}"`).create(config, logger);
}
