// Starting the Cloud API simulator in this process: its Graph API and its control channel on loopback, for
// `yona wa-sim`, for `yona serve` (a bundled carrier) and for tests and benchmarks.
import type { Server } from 'node:http';
import { startWhatsAppControl } from './control.ts';
import { startGraphServer } from './graph-api.ts';
import { type BusinessNumber, WhatsAppSimulator } from './simulator.ts';
import { DEFAULT_RETRY, type RetryPolicy } from './webhooks.ts';

/** The token and app secret the simulator takes when none is given. */
export const DEFAULT_SIM_TOKEN = 'wa-sim-token';
export const DEFAULT_SIM_APP_SECRET = 'wa-sim-app-secret';
export const DEFAULT_STATUS_DELAY_MS = 200;

export interface WhatsAppSimulatorOptions {
  /** The Graph API's port (0 or absent: any free one). */
  port?: number;
  /** The control channel's port (0 or absent: any free one). */
  controlPort?: number;
  /** Where webhooks go (absent: nowhere until set). */
  webhookUrl?: string;
  appSecret?: string;
  token?: string;
  /** Between a message's statuses (sent, delivered, read), ms. */
  statusDelayMs?: number;
  /** Free-form texts outside the user's 24-hour window fail with 131047 (default true, as at Meta). */
  window?: boolean;
  /** Retries of failed webhook posts (doubling from baseMs up to maxMs, `attempts` posts in all). */
  retry?: Partial<RetryPolicy>;
  businesses?: BusinessNumber[];
}

/** A running simulator. */
export interface RunningWhatsAppSimulator {
  /** The Graph API's base address (a carrier's graph URL): http://127.0.0.1:PORT. */
  url: string;
  controlUrl: string;
  token: string;
  /** The default app secret webhooks are signed with (as `setWebhook` last set it). */
  readonly appSecret: string;
  simulator: WhatsAppSimulator;
  /** Points webhooks (of businesses without their own address) at `url`, signed with `appSecret` when given. */
  setWebhook(url: string | undefined, appSecret?: string): void;
  close(): Promise<void>;
}

const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });

const portOf = (server: Server) => {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
};

export async function startWhatsAppSimulator(
  options: WhatsAppSimulatorOptions = {},
): Promise<RunningWhatsAppSimulator> {
  const simulator = new WhatsAppSimulator({
    token: options.token ?? DEFAULT_SIM_TOKEN,
    appSecret: options.appSecret ?? DEFAULT_SIM_APP_SECRET,
    webhookUrl: options.webhookUrl,
    statusDelayMs: options.statusDelayMs ?? DEFAULT_STATUS_DELAY_MS,
    window: options.window ?? true,
    retry: { ...DEFAULT_RETRY, ...options.retry },
    businesses: options.businesses ?? [],
  });
  const graph = await startGraphServer(simulator, options.port ?? 0);
  let control: Server;
  try {
    control = await startWhatsAppControl(simulator, options.controlPort ?? 0);
  } catch (err) {
    await closeServer(graph);
    throw err;
  }
  return {
    url: `http://127.0.0.1:${portOf(graph)}`,
    controlUrl: `http://127.0.0.1:${portOf(control)}`,
    token: simulator.settings.token,
    get appSecret() {
      return simulator.settings.appSecret;
    },
    simulator,
    setWebhook: (url, appSecret) => simulator.setWebhook(url, appSecret),
    close: async () => {
      simulator.close();
      await Promise.all([closeServer(graph), closeServer(control)]);
    },
  };
}
