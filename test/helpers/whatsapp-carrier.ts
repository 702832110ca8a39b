// `yona admin add-carrier NAME --protocol whatsapp-cloud ...`'s arguments from a carrier's settings, for the tests
// that configure a WhatsApp business number (against `yona wa-sim` or a fake Graph API).
export interface WhatsappCarrierSettings {
  business: string;
  phoneNumberId: string;
  wabaId: string;
  token: string;
  appSecret: string;
  verifyToken: string;
  graphUrl: string;
}

/** The arguments of `yona admin` that add the carrier, then `extra` (e.g. `--messages-per-second N`). */
export function whatsappCarrierArgs(name: string, s: WhatsappCarrierSettings, ...extra: string[]): string[] {
  return [
    'add-carrier',
    name,
    '--protocol',
    'whatsapp-cloud',
    '--business-number',
    s.business,
    '--phone-number-id',
    s.phoneNumberId,
    '--waba-id',
    s.wabaId,
    '--token',
    s.token,
    '--app-secret',
    s.appSecret,
    '--verify-token',
    s.verifyToken,
    '--graph-url',
    s.graphUrl,
    ...extra,
  ];
}
