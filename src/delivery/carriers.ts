// The delivery side of a Yona process as one component: binds the configured carriers (or, when none is
// configured, every protocol's bundled simulator started in-process on loopback), and runs the dispatcher, the
// receipts worker and the inbound handler against them.
import client from 'prom-client';
import { type BundledSimulator, sharePrefixes } from '../carriers/index.ts';
import type { CarrierLimits } from '../carriers/limits.ts';
import type { Carrier } from '../carriers/types.ts';
import type { Config } from '../config.ts';
import { sealingKey } from '../secret-key.ts';
import type { Component, RoleHealth, ComponentHost } from '../component.ts';
import { channelOf, DEFAULT_CHANNEL } from '../domain/channels.ts';
import type { Role } from '../domain/roles.ts';
import { loadCarrierSetup, type CarrierSetup } from './carrier-setup.ts';
import type { DeliverySettings } from './delivery-settings.ts';
import { Dispatcher } from './dispatcher.ts';
import { InboundHandler } from './inbound.ts';
import { IngressEvents } from './ingress-events.ts';
import { ReceiptWorker } from './receipts.ts';
import { CarrierSet, routersOf } from './carrier-set.ts';
import { BundledSimulators, simulatorsServe } from './bundled-simulators.ts';
import { DailyCaps } from './daily-caps.ts';
import { protocolHealth, registerProtocolMetrics } from './protocol-metrics.ts';
import { CarrierHealthBook, type CarrierHealth } from './carrier-health.ts';
import { CarrierIncidents } from './carrier-incidents.ts';
import { registerCarrierMetrics, StoreQueueFigures } from './carrier-metrics.ts';
import { DeliveryOutcomes, registerDeliveryOutcomeMetrics } from './delivery-outcomes.ts';

/** Options of the carriers component (tests and benchmarks pass their own carriers and settings). */
export interface CarriersOptions {
  /** Carriers and routes to use instead of YONA_CARRIERS_FILE and the store. */
  setup?: CarrierSetup;
  /** Settings and YONA_CARRIERS_FILE from this configuration instead of the service's. */
  config?: Config;
  /** Overrides of the settings read from the environment. */
  settings?: Partial<DeliverySettings>;
  /** How often the store and the carriers file are read again for changes (RELOAD_MS). */
  reloadMs?: number;
}

/** Carriers and routes changed in the store or the carriers file apply within this (and at once on SIGHUP). */
const RELOAD_MS = 2000;
/** How often the carriers' health is looked at for incidents to log (carrier-incidents.ts). */
const INCIDENT_CHECK_MS = 1000;

/** The running parts, for tests and benchmarks. */
export interface CarriersRuntime {
  carriers: Map<string, Carrier>;
  dispatcher: Dispatcher;
  receipts: ReceiptWorker;
  inbound: InboundHandler;
  /** The bundled simulators when this process started them (one per protocol that has one). */
  simulators?: BundledSimulator[];
  /** This node's view of the carriers' daily caps. */
  caps?: DailyCaps;
  /** What the dispatcher counts per carrier, for the carriers' health. */
  health?: CarrierHealthBook;
  /** Delivery outcomes and unmatched receipts per carrier, for /metrics. */
  outcomes?: DeliveryOutcomes;
  /** On a receipts node: the events carriers posted to their webhooks, processed. */
  ingress?: IngressEvents;
}

// Each carrier's daily cap and price, as its settings give them.
function capsOf(setup: CarrierSetup): Map<string, CarrierLimits> {
  return new Map(setup.carriers.map((c) => [c.name, { dailyCap: c.dailyCap, costPerPart: c.costPerPart }]));
}

/** The health of every carrier this node runs now (empty before the carriers start). */
function carrierReports(runtime: CarriersRuntime | undefined): CarrierHealth[] {
  return runtime?.health && runtime.carriers ? runtime.health.reports(runtime.carriers.values()) : [];
}

// A dispatcher node is well while one of its text carriers can submit, or while it holds none of their binds
// because other dispatcher nodes hold them all (it stands by).
function dispatcherWell(service: ComponentHost, texts: CarrierHealth[]): boolean {
  if (texts.length === 0 || texts.some((r) => r.canSubmit)) return true;
  return texts.every((r) => r.bindsHeld === 0) && service.node.nodesWith('dispatcher') > 1;
}

// Counters of this node's dispatcher and the binds of its carriers, read at scrape time (registered once).
function registerDispatchMetrics(
  service: ComponentHost,
  stats: () => Dispatcher['stats'] | undefined,
  carriers: () => Map<string, Carrier> | undefined,
): void {
  const { registry } = service.metrics;
  if (registry.getSingleMetric('yona_dispatched_messages_total')) return;
  const node = service.node.name;
  registerProtocolMetrics(registry, node, carriers);
  new client.Counter({
    name: 'yona_dispatched_messages_total',
    help: 'Messages this node submitted, retried or failed at submit (by outcome)',
    labelNames: ['node', 'outcome'],
    registers: [registry],
    collect() {
      const s = stats();
      if (!s) return;
      this.reset();
      this.inc({ node, outcome: 'submitted' }, s.submitted);
      this.inc({ node, outcome: 'retried' }, s.retried);
      this.inc({ node, outcome: 'failed' }, s.failed);
    },
  });
  new client.Gauge({
    name: 'yona_carrier_shares_in_use',
    help: 'Shares of a carrier (its binds, or shares of its call limit) this node holds, per carrier',
    labelNames: ['node', 'carrier'],
    registers: [registry],
    collect() {
      this.reset();
      for (const c of carriers()?.values() ?? []) {
        const held = service.node.leases().filter((l) => l.endsWith(`:${c.name}`) || l.includes(`:${c.name}#`)).length;
        this.set({ node, carrier: c.name }, held);
      }
    },
  });
}

export { simulatorInfoPath } from './bundled-simulators.ts';

/** The delivery component; `runtime()` exposes its parts once started. */
export function carriersComponent(
  options: CarriersOptions = {},
): Component & { runtime(): CarriersRuntime | undefined } {
  let runtime: CarriersRuntime | undefined;
  let bundled: BundledSimulators | undefined;

  // The carriers this node binds for the configured ones: those, or the bundled simulators while none is
  // configured (started then, and stopped once a carrier is configured, by the caller after the switch).
  async function carriersFor(service: ComponentHost, configured: CarrierSetup, settings: DeliverySettings) {
    const { node } = service;
    if (!simulatorsServe(configured, settings.simulators) || !(node.has('dispatcher') || node.has('voice')))
      return configured;
    bundled ??= await BundledSimulators.start(service, settings.simulatorReceiptDelayMs);
    if (runtime) runtime.simulators = bundled.simulators;
    return bundled.setup();
  }

  // The bundled simulators stop once configured carriers took their place (their carriers are already unbound).
  async function stopSimulators(service: ComponentHost, configured: CarrierSetup): Promise<void> {
    if (!bundled) return;
    const stopping = bundled;
    bundled = undefined;
    if (runtime) runtime.simulators = undefined;
    await stopping.stop();
    service.logger.info(
      {
        event: 'simulator.stopped',
        channels: stopping.channels(),
        carriers: configured.carriers.map((c) => c.name),
      },
      'carrier configured: the bundled simulators stopped; sends go to the configured carriers',
    );
  }

  // What each delivery role of this node holds (binds per SMS carrier, call shares per trunk) and how each of
  // its carriers is doing; the dispatcher role is not well while none of its text carriers can submit.
  function health(service: ComponentHost | undefined): RoleHealth[] {
    if (!service) return [];
    const held = service.node.leases();
    const reports = carrierReports(runtime);
    const report = (role: Role): RoleHealth => {
      const own = reports.filter((r) => channelOf(r.channel).role === role);
      return {
        role,
        ok: runtime?.dispatcher !== undefined,
        holds: held.filter((l) => sharePrefixes(role).some((prefix) => l.startsWith(prefix))),
        carriers: Object.fromEntries(own.map(({ carrier, ...rest }) => [carrier, rest])),
      };
    };
    const dispatcher = report('dispatcher');
    const texts = reports.filter((r) => r.channel === DEFAULT_CHANNEL);
    const submitting = dispatcherWell(service, texts);
    return [
      {
        ...dispatcher,
        ok: dispatcher.ok && submitting,
        ...(submitting ? {} : { problem: 'no carrier that routes texts can submit' }),
      },
      { ...report('voice'), ...protocolHealth('voice', runtime?.carriers) },
      { role: 'receipts', ok: runtime?.receipts !== undefined },
    ];
  }
  let started: ComponentHost | undefined;
  let carrierSet: CarrierSet | undefined;
  let stopReloading: (() => Promise<void>) | undefined;
  let incidentTimer: NodeJS.Timeout | undefined;

  return {
    name: 'carriers',
    runtime: () => runtime,
    health: () => health(started),
    simulators: () => bundled?.channels() ?? [],
    async start(service) {
      started = service;
      const config = options.config ?? service.config;
      const settings = { ...config.delivery, ...options.settings };
      const { node } = service;
      const key = () => sealingKey(service.config);
      // When this node last began reading its carriers (a reading applies what the store held when it began).
      let readAt = service.clock();
      const configured = options.setup ?? (await loadCarrierSetup(service.store.db, config.carriersFile, key));
      let refreshSince: ((at: number) => Promise<void>) | undefined;
      const setup = await carriersFor(service, configured, settings);
      const routers = routersOf(setup);
      const outcomes = new DeliveryOutcomes();
      const deps = {
        store: service.store,
        logger: service.logger,
        signals: service.signals,
        clock: service.clock,
        settings,
        outcomes,
      };
      const receipts = new ReceiptWorker(deps);
      const inbound = new InboundHandler(deps);
      const set = new CarrierSet(service, receipts, inbound);
      const { carriers } = set;
      const healthBook = new CarrierHealthBook(service.clock);
      // Daily caps count in the service's time zone (YONA_TIME_ZONE), on every node alike.
      const caps = new DailyCaps(service.store.db, config.defaultTimeZone, service.clock, service.logger);
      caps.setCaps(capsOf(setup));
      await caps.start();
      const dispatcher = new Dispatcher({
        health: healthBook,
        ...deps,
        carriers,
        routers,
        recorded: () => receipts.rematchSoon(),
        reclaimOnStart: !service.store.shared,
        sealingKey: key(),
        caps,
        refreshRoutes: (at) => refreshSince?.(at) ?? Promise.resolve(),
      });
      runtime = {
        carriers,
        dispatcher,
        receipts,
        inbound,
        caps,
        health: healthBook,
        simulators: bundled?.simulators,
        outcomes,
      };
      registerDeliveryOutcomeMetrics(
        service.metrics.registry,
        node.name,
        () => runtime?.outcomes,
        service.store.db,
        service.clock,
      );
      registerDispatchMetrics(
        service,
        () => runtime?.dispatcher?.stats,
        () => runtime?.carriers,
      );
      registerCarrierMetrics(
        service.metrics.registry,
        node.name,
        () => carrierReports(runtime),
        new StoreQueueFigures(service.store, service.clock),
        service.clock,
      );
      // Each heartbeat writes this node's view of its carriers for `yona admin carriers --status`.
      node.reportCarrierHealth(() => JSON.stringify({ at: service.clock(), carriers: carrierReports(runtime) }));
      const incidents = new CarrierIncidents(service.logger, service.clock);
      incidentTimer = setInterval(() => incidents.check(carrierReports(runtime)), INCIDENT_CHECK_MS);
      incidentTimer.unref();
      receipts.start({ sweeps: node.has('receipts') });
      if (node.has('receipts')) {
        runtime.ingress = new IngressEvents({ ...deps, receipts, inbound });
        runtime.ingress.start();
      }
      await set.apply(setup);
      carrierSet = set;
      // Live changes: the store (and the carriers file) read again every few seconds and on SIGHUP.
      // A node that started the bundled simulators takes configured carriers the same way, and stops them.
      if (!options.setup) {
        let last = JSON.stringify(configured);
        let reloading: Promise<void> | undefined;
        const reload = () => {
          reloading ??= (async () => {
            readAt = service.clock();
            try {
              const configuredNow = await loadCarrierSetup(service.store.db, config.carriersFile, key);
              const text = JSON.stringify(configuredNow);
              if (text === last) return;
              const next = await carriersFor(service, configuredNow, settings);
              const routers = routersOf(next);
              await set.apply(next);
              caps.setCaps(capsOf(next));
              dispatcher.setRouters(routers);
              if (next === configuredNow) await stopSimulators(service, configuredNow);
              last = text;
              service.logger.info(
                { carriers: next.carriers.map((c) => c.name), routes: next.routes.length },
                'carriers or routes changed: applied',
              );
            } catch (err) {
              service.logger.error({ err }, 'carriers or routes changed but cannot be applied; the running ones stay');
            }
          })().finally(() => (reloading = undefined));
          return reloading;
        };
        refreshSince = async (at) => {
          await reloading;
          if (readAt <= at) await reload();
        };
        const timer = setInterval(() => void reload(), options.reloadMs ?? RELOAD_MS);
        timer.unref();
        const onHangup = () => void reload();
        process.on('SIGHUP', onHangup);
        stopReloading = async () => {
          refreshSince = undefined;
          clearInterval(timer);
          process.off('SIGHUP', onHangup);
          await reloading;
        };
      }
      dispatcher.start({ texts: node.has('dispatcher'), calls: node.has('voice') });
    },
    async stop() {
      if (!runtime) return;
      const r = runtime;
      clearInterval(incidentTimer);
      started?.node.reportCarrierHealth(() => null);
      await stopReloading?.();
      await r.dispatcher?.stop();
      r.caps?.stop();
      await carrierSet?.stop();
      await r.ingress?.stop();
      await r.receipts?.stop();
      await bundled?.stop();
      bundled = undefined;
      runtime = undefined;
    },
  };
}
