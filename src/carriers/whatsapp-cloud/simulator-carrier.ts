// The carrier `yona serve` binds to its bundled Cloud API simulator: `simulator-whatsapp`, sending from any
// business number an account holds (the simulator takes a phone number id it was not told about as the number of
// the same digits), at the most a number may be given, with the simulator's token and app secret.
import { randomBytes } from 'node:crypto';
import type { RunningWhatsAppSimulator } from './simulator/start.ts';
import {
  MAX_MESSAGES_PER_SECOND,
  whatsappConfigFromFile,
  whatsappFileCarrier,
  type WhatsappCarrierConfig,
} from './settings.ts';

/** The name of the bundled simulator's carrier (its webhooks: /webhooks/whatsapp/simulator-whatsapp). */
export const SIMULATOR_CARRIER = 'simulator-whatsapp';

/** The business number the bundled carrier names as its own (it sends from any). */
const SIMULATOR_NUMBER = '972500000000';

/** The settings of the carrier bound to a running simulator. */
export function simulatorCarrier(sim: RunningWhatsAppSimulator): WhatsappCarrierConfig {
  return whatsappConfigFromFile(
    whatsappFileCarrier.parse({
      protocol: 'whatsapp-cloud',
      name: SIMULATOR_CARRIER,
      businessNumber: SIMULATOR_NUMBER,
      phoneNumberId: SIMULATOR_NUMBER,
      wabaId: 'simulator',
      token: sim.token,
      appSecret: sim.appSecret,
      verifyToken: randomBytes(12).toString('hex'),
      graphUrl: sim.url,
      messagesPerSecond: MAX_MESSAGES_PER_SECOND,
      anyBusinessNumber: true,
    }),
  );
}
