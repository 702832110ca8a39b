// The delivery side of a Yona process as one component: binds the configured carriers (or, when none is
// configured, every protocol's bundled simulator started in-process on loopback), and runs the dispatcher, the
// receipts worker and the inbound handler against them.
import client from 'prom-client';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BundledSimulator, protocols, sharePrefixes } from '../carriers/index.ts';
import type { CarrierLimits } from '../carriers/limits.ts';
import type { Carrier } from '../carriers/types.ts';
import type { Config } from '../config.ts';
import { sealingKey } from '../secret-key.ts';
import type { Component, RoleHealth, ComponentHost } from '../component.ts';
import type { Role } from '../domain/roles.ts';
import { loadCarrierSetup, type CarrierSetup } from './carrier-setup.ts';
import type { DeliverySettings } from './delivery-settings.ts';
import { Dispatcher } from './dispatcher.ts';
import { InboundHandler } from './inbound.ts';
import { ReceiptWorker } from './receipts.ts';
import { CarrierSet, routersOf } from './carrier-set.ts';
import { DailyCaps } from './daily-caps.ts';
import { registerVoiceMetrics, trunkHealth } from './voice-metrics.ts';

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
}

// Each carrier's daily cap and price, as its settings give them.
function capsOf(setup: CarrierSetup): Map<string, CarrierLimits> {
  return new Map(setup.carriers.map((c) => [c.name, { dailyCap: c.dailyCap, costPerPart: c.costPerPart }]));
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
  registerVoiceMetrics(registry, node, carriers);
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

/** Where `yona sim` finds the simulator `yona serve` (or `yona smsc-sim`) started. */
export function simulatorInfoPath(dataDir: string): string {
  return join(dataDir, 'simulator.json');
}

/** The delivery component; `runtime()` exposes its parts once started. */
export function carriersComponent(
  options: CarriersOptions = {},
): Component & { runtime(): CarriersRuntime | undefined } {
  let runtime: CarriersRuntime | undefined;
  let infoFile: string | undefined;

  // Every protocol's simulator, each bound by a carrier of its own, and where `yona sim` finds them.
  async function startSimulators(service: ComponentHost, settings: DeliverySettings): Promise<CarrierSetup> {
    const simulators: BundledSimulator[] = [];
    for (const [, protocol] of protocols()) {
      if (!protocol.simulator) continue;
      const started = await protocol.simulator.start({ receiptDelayMs: settings.simulatorReceiptDelayMs });
      simulators.push(started);
      service.logger.info(started.started.fields, started.started.message);
    }
    for (const one of simulators) for (const other of simulators) if (other !== one) one.attach?.(other);
    infoFile = simulatorInfoPath(service.config.dataDir);
    const info = Object.assign({}, ...simulators.map((s) => s.info));
    writeFileSync(infoFile, `${JSON.stringify({ ...info, pid: process.pid, startedAt: new Date().toISOString() })}\n`);
    runtime = { simulators } as CarriersRuntime;
    return { carriers: simulators.map((s) => s.carrier), routes: [] };
  }

  // What each delivery role of this node holds: binds per SMS carrier, call shares per trunk.
  function health(service: ComponentHost | undefined): RoleHealth[] {
    if (!service) return [];
    const held = service.node.leases();
    const report = (role: Role): RoleHealth => ({
      role,
      ok: runtime?.dispatcher !== undefined,
      holds: held.filter((l) => sharePrefixes(role).some((prefix) => l.startsWith(prefix))),
    });
    return [
      report('dispatcher'),
      { ...report('voice'), trunks: trunkHealth(runtime?.carriers) },
      { role: 'receipts', ok: runtime?.receipts !== undefined },
    ];
  }
  let started: ComponentHost | undefined;
  let carrierSet: CarrierSet | undefined;
  let stopReloading: (() => Promise<void>) | undefined;

  return {
    name: 'carriers',
    runtime: () => runtime,
    health: () => health(started),
    async start(service) {
      started = service;
      const config = options.config ?? service.config;
      const settings = { ...config.delivery, ...options.settings };
      const { node } = service;
      let setup = options.setup ?? (await loadCarrierSetup(service.store.db, config.carriersFile));
      if (setup.carriers.length === 0 && (node.has('dispatcher') || node.has('voice')))
        setup = await startSimulators(service, settings);
      const { router, voiceRouter } = routersOf(setup);
      const deps = {
        store: service.store,
        logger: service.logger,
        signals: service.signals,
        clock: service.clock,
        settings,
      };
      const receipts = new ReceiptWorker(deps);
      const inbound = new InboundHandler(deps);
      const set = new CarrierSet(service, receipts, inbound);
      const { carriers } = set;
      // Daily caps count in the service's time zone (YONA_TIME_ZONE), on every node alike.
      const caps = new DailyCaps(service.store.db, config.defaultTimeZone, service.clock, service.logger);
      caps.setCaps(capsOf(setup));
      await caps.start();
      const dispatcher = new Dispatcher({
        ...deps,
        carriers,
        router,
        voiceRouter,
        recorded: () => receipts.rematchSoon(),
        reclaimOnStart: service.store.dialect === 'sqlite',
        sealingKey: sealingKey(service.config),
        caps,
      });
      runtime = { ...runtime, carriers, dispatcher, receipts, inbound, caps };
      registerDispatchMetrics(
        service,
        () => runtime?.dispatcher?.stats,
        () => runtime?.carriers,
      );
      receipts.start({ sweeps: node.has('receipts') });
      await set.apply(setup);
      carrierSet = set;
      // Live changes: the store (and the carriers file) read again every few seconds and on SIGHUP.
      if (!options.setup && !runtime.simulators) {
        let last = JSON.stringify(setup);
        let reloading: Promise<void> | undefined;
        const reload = () => {
          reloading ??= (async () => {
            try {
              const next = await loadCarrierSetup(service.store.db, config.carriersFile);
              const text = JSON.stringify(next);
              if (text === last) return;
              const routers = routersOf(next);
              await set.apply(next);
              caps.setCaps(capsOf(next));
              dispatcher.setRouters(routers.router, routers.voiceRouter);
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
        const timer = setInterval(() => void reload(), options.reloadMs ?? RELOAD_MS);
        timer.unref();
        const onHangup = () => void reload();
        process.on('SIGHUP', onHangup);
        stopReloading = async () => {
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
      await stopReloading?.();
      await r.dispatcher?.stop();
      r.caps?.stop();
      await carrierSet?.stop();
      await r.receipts?.stop();
      for (const simulator of r.simulators ?? []) await simulator.stop();
      if (infoFile) rmSync(infoFile, { force: true });
      runtime = undefined;
    },
  };
}
