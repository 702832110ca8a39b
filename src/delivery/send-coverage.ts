// Which channels have a carrier to take a send, as the API sees it: the configured carriers (the store's and
// YONA_CARRIERS_FILE's), read again every 2 s like the carriers a node runs, or the bundled simulators while none
// is configured and YONA_SIMULATORS is on. A send needing a channel nothing takes is refused at accept.
import type { Config } from '../config.ts';
import { type ChannelName, channelNames, channelOf } from '../domain/channels.ts';
import type { Logger } from '../logger.ts';
import { sealingKey } from '../secret-key.ts';
import type { Store } from '../store/engine/db.ts';
import { servedChannels } from './bundled-simulators.ts';
import { loadCarrierSetup } from './carrier-setup.ts';

/** As often as a running node reads its carriers again (carriers.ts). */
const REFRESH_MS = 2000;

// Why a channel's sends are refused while none of its carriers is configured.
function none(channel: ChannelName): string {
  const { nouns } = channelOf(channel);
  return `no ${nouns.carrier} can take ${nouns.messages}: none is configured`;
}

/** What operations/ reads as `SendCoverage` (the API's context). */
export class ChannelCoverage {
  private served = new Set<ChannelName>(channelNames());
  private timer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly store: Store,
    private readonly config: Config,
    private readonly logger: Logger,
  ) {}

  /** Reads the carriers once, then every REFRESH_MS until stop(). */
  static async start(store: Store, config: Config, logger: Logger): Promise<ChannelCoverage> {
    const coverage = new ChannelCoverage(store, config, logger);
    await coverage.refresh();
    coverage.timer = setInterval(() => void coverage.refresh(), REFRESH_MS);
    coverage.timer.unref();
    return coverage;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  unserved(channel: ChannelName): string | undefined {
    if (this.served.has(channel)) return undefined;
    return this.config.delivery.simulators ? none(channel) : `${none(channel)} (YONA_SIMULATORS=off)`;
  }

  refused(channel: ChannelName, account: string, why: string): void {
    this.logger.warn({ event: 'send.unroutable', channel, account, why }, 'send refused: no carrier can take it');
  }

  // A configuration that cannot be read keeps the last view (the carriers component logs the problem).
  private async refresh(): Promise<void> {
    try {
      const configured = await loadCarrierSetup(this.store.db, this.config.carriersFile, () => sealingKey(this.config));
      this.served = servedChannels(configured, this.config.delivery.simulators);
    } catch {
      // keep the last view
    }
  }
}
