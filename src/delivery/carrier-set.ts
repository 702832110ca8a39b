// The carriers a node runs, kept in step with the configuration while it runs: a carrier added starts (its binds
// leased like any other), one removed leaves the routes at once and unbinds once its submits in flight are
// answered (queued ones go to the next carrier on their route), one whose settings changed is replaced so.
import { carrierChannel, carrierRole, createCarrier } from '../carriers/index.ts';
import { type ChannelName, channelNames, DEFAULT_CHANNEL } from '../domain/channels.ts';
import type { Carrier, CarrierConfigBase } from '../carriers/types.ts';
import { isShared, keepShares } from '../cluster/shares.ts';
import type { ComponentHost } from '../component.ts';
import { withFields } from '../logger.ts';
import { recordLateCarrierId } from '../store/dispatch.ts';
import type { CarrierSetup } from './carrier-setup.ts';
import type { InboundHandler } from './inbound.ts';
import type { ReceiptWorker } from './receipts.ts';
import { carrierList, Router } from './routing.ts';

/** The routers of a setup, one per channel: each channel is routed apart, a route belonging to its carriers'. */
export function routersOf(setup: CarrierSetup): Map<ChannelName, Router> {
  const channelOfCarrier = new Map(setup.carriers.map((c) => [c.name, carrierChannel(c.protocol)]));
  // A route naming a carrier nobody configured is the default channel's, whose router refuses it (ConfigError).
  const routeChannel = (carrier: string) => channelOfCarrier.get(carrierList(carrier)[0].name) ?? DEFAULT_CHANNEL;
  const routers = new Map<ChannelName, Router>();
  for (const channel of channelNames()) {
    routers.set(
      channel,
      new Router(
        setup.routes.filter((r) => routeChannel(r.carrier) === channel),
        setup.carriers.filter((c) => channelOfCarrier.get(c.name) === channel).map((c) => c.name),
      ),
    );
  }
  return routers;
}

interface Running {
  carrier: Carrier;
  /** Its settings as started, to tell a change. */
  settings: string;
  stopShares?: () => Promise<void>;
}

export class CarrierSet {
  /** The carriers submits go to, by name (the dispatcher reads this map). */
  readonly carriers = new Map<string, Carrier>();
  private readonly running = new Map<string, Running>();

  constructor(
    private readonly service: ComponentHost,
    private readonly receipts: ReceiptWorker,
    private readonly inbound: InboundHandler,
  ) {}

  /** Starts, replaces and stops carriers so this node runs those of `setup` its roles take. */
  async apply(setup: CarrierSetup): Promise<void> {
    const { node } = this.service;
    const wanted = new Map(setup.carriers.filter((c) => node.has(carrierRole(c.protocol))).map((c) => [c.name, c]));
    const leaving: Running[] = [];
    for (const [name, run] of this.running) {
      const next = wanted.get(name);
      if (next && JSON.stringify(next) === run.settings) continue;
      // Out of the routes first: nothing new is submitted to it while it drains.
      this.carriers.delete(name);
      this.running.delete(name);
      leaving.push(run);
    }
    await Promise.all(leaving.map((run) => this.stopOne(run, 'carrier removed or changed: unbound')));
    const starting = [...wanted.values()].filter((c) => !this.running.has(c.name));
    await Promise.all(starting.map((c) => this.startOne(c)));
  }

  /** Stops every carrier (the service stops). */
  async stop(): Promise<void> {
    const all = [...this.running.values()];
    this.running.clear();
    this.carriers.clear();
    await Promise.all(all.map((run) => this.stopOne(run, 'carrier stopped')));
  }

  // `why`: the configuration took it away, or the service stops.
  private async stopOne(run: Running, why: string): Promise<void> {
    await run.stopShares?.();
    await run.carrier.stop();
    this.service.logger.info({ carrier: run.carrier.name }, why);
  }

  private async startOne(config: CarrierConfigBase): Promise<void> {
    const { service, receipts, inbound } = this;
    const logger = withFields(service.logger, { carrier: config.name });
    const carrier = createCarrier(config, logger);
    carrier.onReceipt((r) => receipts.add(config.name, r));
    carrier.onInbound(async (m) => void (await inbound.handle(config.name, m)));
    carrier.onLateAccept?.(async (late) => {
      await recordLateCarrierId(
        service.store.db,
        config.name,
        late.messageId,
        late.partIndex,
        late.carrierMessageId,
        service.clock(),
      );
      receipts.rematchSoon(); // its receipt may already wait among the pending ones
    });
    const run: Running = { carrier, settings: JSON.stringify(config) };
    this.running.set(config.name, run);
    this.carriers.set(config.name, carrier);
    // Binds and call shares are leased: a carrier's binds are the total over every node.
    if (isShared(carrier))
      run.stopShares = await keepShares(service.node, carrier, carrierRole(config.protocol), logger);
    await carrier.start();
    // (A carrier whose secret does not open here said why when it started.)
    if (!carrier.canSubmit() && !config.unopenedSecrets?.length)
      logger.warn({ carrier: config.name }, 'carrier not bound yet; it keeps retrying and messages wait');
  }
}
