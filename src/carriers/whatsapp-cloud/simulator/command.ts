// `yona wa-sim`: the Cloud API simulator on its own, as a WhatsApp carrier for tests and trials. Its options,
// checked (a ConfigError names the option at fault), the simulator started, and the lines that say where it
// listens and how a carrier reaches it.
import { ConfigError } from '../../../domain/errors.ts';
import type { CliValues } from '../../protocol-cli.ts';
import type { SimulatorCommand, StartedCommand } from '../../protocol-simulator.ts';
import type { BusinessNumber } from './simulator.ts';
import { DEFAULT_STATUS_DELAY_MS, startWhatsAppSimulator } from './start.ts';

function port(text: string | undefined, what: string): number {
  if (text === undefined) return 0;
  if (!/^\d+$/.test(text) || Number(text) > 65535)
    throw new ConfigError(`${what} must be a port number, got "${text}"`);
  return Number(text);
}

function milliseconds(text: string | undefined, what: string, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text)) throw new ConfigError(`${what} must be milliseconds, got "${text}"`);
  return Number(text);
}

function webhookUrl(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  try {
    const url = new URL(text);
    if (url.protocol === 'http:' || url.protocol === 'https:') return text;
  } catch {
    // refused below
  }
  throw new ConfigError(`--webhook must be an http(s) URL, got "${text}"`);
}

// --business NUMBER=PHONE_NUMBER_ID[:WABA_ID], repeatable.
function businesses(values: string[] | undefined): BusinessNumber[] {
  return (values ?? []).map((value) => {
    const m = /^\+?(\d{6,15})=(\d+)(?::(\d+))?$/.exec(value);
    if (!m) throw new ConfigError(`--business must be NUMBER=PHONE_NUMBER_ID[:WABA_ID], got "${value}"`);
    return { number: m[1], phoneNumberId: m[2], ...(m[3] ? { wabaId: m[3] } : {}) };
  });
}

async function start(values: CliValues): Promise<StartedCommand> {
  const text = (key: string) => values[key] as string | undefined;
  const window = text('window') ?? 'on';
  if (window !== 'on' && window !== 'off') throw new ConfigError(`--window must be on or off, got "${window}"`);
  const graphPort = port(text('port'), '--port');
  const controlPort = port(text('control-port'), '--control-port');
  const options = {
    port: graphPort,
    controlPort,
    webhookUrl: webhookUrl(text('webhook')),
    appSecret: text('app-secret'),
    token: text('token'),
    statusDelayMs: milliseconds(text('status-delay'), '--status-delay', DEFAULT_STATUS_DELAY_MS),
    window: window === 'on',
    retry: { baseMs: milliseconds(text('retry-base'), '--retry-base', 1000) },
    businesses: businesses(values.business as string[] | undefined),
  };
  const sim = await startWhatsAppSimulator(options).catch((err: Error) => {
    throw new ConfigError(
      `cannot listen on 127.0.0.1:${graphPort} (--port) or ${controlPort} (--control-port): ${err.message}`,
    );
  });
  return {
    info: { graphUrl: sim.url, whatsappControlUrl: sim.controlUrl },
    listening: (infoFile) => [
      `whatsapp simulator: Cloud API on ${sim.url}, control ${sim.controlUrl}, webhooks to ${options.webhookUrl ?? '(none yet)'} (written to ${infoFile})`,
      `token ${sim.token}, app secret ${sim.appSecret}; any business number is served (its phone number id is the number itself unless --business says otherwise)`,
      `a carrier reaches it with: yona admin add-carrier NAME --protocol whatsapp-cloud --business-number NUMBER --phone-number-id NUMBER --waba-id NUMBER --token ${sim.token} --app-secret ${sim.appSecret} --verify-token TOKEN --graph-url ${sim.url}`,
    ],
    stop: () => sim.close(),
  };
}

export const waSimCommand: SimulatorCommand = {
  name: 'wa-sim',
  usage:
    'usage: yona wa-sim --port N [--control-port N] [--webhook URL] [--app-secret S] [--token T] [--status-delay MS] [--business NUMBER=PHONE_NUMBER_ID[:WABA_ID]]... [--window on|off] [--retry-base MS]',
  options: {
    port: { type: 'string' },
    'control-port': { type: 'string' },
    webhook: { type: 'string' },
    'app-secret': { type: 'string' },
    token: { type: 'string' },
    'status-delay': { type: 'string' },
    business: { type: 'string', multiple: true },
    window: { type: 'string' },
    'retry-base': { type: 'string' },
  },
  required: ['port'],
  start,
};
