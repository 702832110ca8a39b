// The delivery side of a Yona process as one component: binds the configured carriers (or, when none is
// configured, the bundled SMSC simulator started in-process on loopback), and runs the dispatcher, the
// receipts worker and the inbound handler against them.
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CallSimulator, SmscSimulator } from '../carriers/simulator/index.ts';
import type { SipTrunkConfig } from '../carriers/sip/connector.ts';
import { createCarrier } from '../carriers/index.ts';
import type { SmppCarrierConfig } from '../carriers/smpp/connector.ts';
import { CARRIER_TIMER_DEFAULTS } from '../carriers/smpp/settings.ts';
import type { Carrier } from '../carriers/types.ts';
import { sealingKey } from '../secret-key.ts';
import type { Component, Service } from '../service.ts';
import { recordLateCarrierId } from '../store/dispatch.ts';
import { loadCarrierSetup, type CarrierSetup } from './carrier-setup.ts';
import { deliverySettings, type DeliverySettings } from './delivery-settings.ts';
import { Dispatcher } from './dispatcher.ts';
import { InboundHandler } from './inbound.ts';
import { ReceiptWorker } from './receipts.ts';
import { Router } from './routing.ts';

/** Options of the carriers component (tests and benchmarks pass their own carriers and settings). */
export interface CarriersOptions {
  /** Carriers and routes to use instead of YONA_CARRIERS_FILE and the store. */
  setup?: CarrierSetup;
  /** Environment for settings and YONA_CARRIERS_FILE (process.env). */
  env?: NodeJS.ProcessEnv;
  /** Overrides of the settings read from the environment. */
  settings?: Partial<DeliverySettings>;
}

/** The running parts, for tests and benchmarks. */
export interface CarriersRuntime {
  carriers: Map<string, Carrier>;
  dispatcher: Dispatcher;
  receipts: ReceiptWorker;
  inbound: InboundHandler;
  /** The bundled simulator when this process started one (its SMSC, and its SIP side for calls). */
  simulator?: SmscSimulator;
  callSimulator?: CallSimulator;
}

/** Where `yona sim` finds the simulator `yona serve` (or `yona smsc-sim`) started. */
export function simulatorInfoPath(dataDir: string): string {
  return join(dataDir, 'simulator.json');
}

/** The delivery component; `runtime()` exposes its parts once started. */
export function carriersComponent(options: CarriersOptions = {}): Component & { runtime(): CarriersRuntime | undefined } {
  let runtime: CarriersRuntime | undefined;
  let infoFile: string | undefined;

  async function startSimulator(service: Service, settings: DeliverySettings): Promise<CarrierSetup> {
    const password = randomBytes(6).toString('hex');
    const simulator = new SmscSimulator({ systemId: 'yona', password, receiptDelayMs: settings.simulatorReceiptDelayMs, controlPort: 0 });
    const port = await simulator.start(0);
    const controlUrl = `http://127.0.0.1:${simulator.controlPort()}`;
    infoFile = simulatorInfoPath(service.config.dataDir);
    writeFileSync(infoFile, `${JSON.stringify({ smppPort: port, controlUrl, pid: process.pid, startedAt: new Date().toISOString() })}\n`);
    service.logger.info({ smpp: `127.0.0.1:${port}`, control: controlUrl }, 'no carrier configured: bundled SMSC simulator started (yona sim talks to it)');
    const callSimulator = new CallSimulator();
    const sipPort = await callSimulator.start(0);
    simulator.attachCalls(callSimulator);
    service.logger.info({ sip: `127.0.0.1:${sipPort}` }, 'bundled call simulator started (a SIP trunk for voice sends)');
    runtime = { simulator, callSimulator } as CarriersRuntime;
    const carrier: SmppCarrierConfig = {
      ...CARRIER_TIMER_DEFAULTS, name: 'simulator', host: '127.0.0.1', port, systemId: 'yona', password,
      bindMode: 'transceiver', binds: 2, windowSize: 100, maxSubmitsPerSecond: 0, tls: false, reconnectBaseMs: 100, reconnectMaxMs: 2000,
    };
    const trunk: SipTrunkConfig = {
      protocol: 'sip', name: 'simulator-voice', host: '127.0.0.1', port: sipPort, callerId: '035550000', localIp: '127.0.0.1',
      maxCalls: 100, callsPerSecond: 0, ringTimeoutMs: 30_000,
    };
    return { carriers: [carrier, trunk], routes: [] };
  }

  return {
    name: 'carriers',
    runtime: () => runtime,
    async start(service) {
      const env = options.env ?? process.env;
      const settings = { ...deliverySettings(env), ...options.settings };
      let setup = options.setup ?? (await loadCarrierSetup(service.store.db, env));
      if (setup.carriers.length === 0) setup = await startSimulator(service, settings);
      // Texts and calls are routed apart: a route belongs to the side of the carrier it names.
      const isTrunk = (name: string) => setup.carriers.some((c) => c.name === name && c.protocol === 'sip');
      const names = setup.carriers.map((c) => c.name);
      const router = new Router(setup.routes.filter((r) => !isTrunk(r.carrier)), names.filter((n) => !isTrunk(n)));
      const voiceRouter = new Router(setup.routes.filter((r) => isTrunk(r.carrier)), names.filter(isTrunk));
      const deps = { store: service.store, logger: service.logger, signals: service.signals, clock: service.clock, settings };
      const receipts = new ReceiptWorker(deps);
      const inbound = new InboundHandler(deps);
      const carriers = new Map<string, Carrier>();
      for (const config of setup.carriers) {
        const carrier = createCarrier(config, service.logger.child({ carrier: config.name }));
        carrier.onReceipt((r) => receipts.add(config.name, r));
        carrier.onInbound(async (m) => void (await inbound.handle(config.name, m)));
        carrier.onLateAccept(async (late) => {
          await recordLateCarrierId(service.store.db, config.name, late.messageId, late.partIndex, late.carrierMessageId, service.clock());
          receipts.rematchSoon(); // its receipt may already wait among the pending ones
        });
        carriers.set(config.name, carrier);
      }
      const dispatcher = new Dispatcher({
        ...deps, carriers, router, voiceRouter, recorded: () => receipts.rematchSoon(), reclaimOnStart: service.store.dialect === 'sqlite',
        sealingKey: sealingKey(service.config),
      });
      runtime = { ...runtime, carriers, dispatcher, receipts, inbound };
      receipts.start();
      await Promise.all([...carriers.values()].map(async (c) => {
        await c.start();
        if (!c.canSubmit()) service.logger.warn({ carrier: c.name }, 'carrier not bound yet; it keeps retrying and messages wait');
      }));
      dispatcher.start();
    },
    async stop() {
      if (!runtime) return;
      const r = runtime;
      await r.dispatcher?.stop();
      await Promise.all([...(r.carriers?.values() ?? [])].map((c) => c.stop()));
      await r.receipts?.stop();
      await r.simulator?.stop();
      await r.callSimulator?.stop();
      if (infoFile) rmSync(infoFile, { force: true });
      runtime = undefined;
    },
  };
}
