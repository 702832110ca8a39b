// The SIP protocol's carriers as the registry (carriers/index.ts) makes them: a voice trunk from its settings.
import type { Carrier, CarrierConfigBase, CarrierLogger } from '../types.ts';
import { SipCarrier, type SipTrunkConfig } from './connector.ts';

/** A voice trunk for these settings (read by sip/settings.ts), logging with `logger`. */
export function createSipTrunk(config: CarrierConfigBase, logger: CarrierLogger): Carrier {
  return new SipCarrier(config as SipTrunkConfig, undefined, logger);
}
