// The bundled simulators of a node: every protocol's simulator, started in-process on loopback while no carrier
// of any kind is configured (and YONA_SIMULATORS is on), each bound by a carrier of its own; stopped as soon as a
// carrier is configured, so that no send goes to a simulator while a real carrier exists. Where `yona sim` finds
// them: ${YONA_DATA_DIR}/simulator.json, written at start and removed at stop (when it is still theirs).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BundledSimulator, type CarrierChannel, carrierChannel, protocols } from '../carriers/index.ts';
import type { ComponentHost } from '../component.ts';
import type { CarrierSetup } from './carrier-setup.ts';

/** Where `yona sim` finds the simulator `yona serve` started. */
export function simulatorInfoPath(dataDir: string): string {
  return join(dataDir, 'simulator.json');
}

/** Where each standalone simulator (`yona smsc-sim`, `yona sip-sim`) registers itself, one file per process. */
export function standaloneSimulatorsDir(dataDir: string): string {
  return join(dataDir, 'simulators');
}

/** Whether the bundled simulators take the sends of a node with these carriers configured. */
export function simulatorsServe(configured: CarrierSetup, simulatorsOn: boolean): boolean {
  return simulatorsOn && configured.carriers.length === 0;
}

/** The channels that have a carrier to take them: the configured carriers', or every one the simulators serve. */
export function servedChannels(configured: CarrierSetup, simulatorsOn: boolean): Set<CarrierChannel> {
  if (simulatorsServe(configured, simulatorsOn))
    return new Set(protocols().flatMap(([name, p]) => (p.simulator ? [carrierChannel(name)] : [])));
  return new Set(configured.carriers.map((c) => carrierChannel(c.protocol)));
}

/** This node's /webhooks address on its own plain-HTTP listener, when it is an API node listening. */
function ownWebhooksUrl(service: ComponentHost): string | undefined {
  if (!service.node.has('api') || !service.http) return undefined;
  const host = service.config.httpHost;
  const loopback = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
  return `http://${loopback.includes(':') ? `[${loopback}]` : loopback}:${service.http.httpPort}/webhooks`;
}

/** The running bundled simulators of this node. */
export class BundledSimulators {
  private constructor(
    readonly simulators: BundledSimulator[],
    private readonly infoFile: string,
  ) {}

  /** Starts every protocol's simulator, logs `simulator.serving` and writes simulator.json. */
  static async start(service: ComponentHost, receiptDelayMs: number): Promise<BundledSimulators> {
    const simulators: BundledSimulator[] = [];
    const webhooksUrl = ownWebhooksUrl(service);
    for (const [, protocol] of protocols()) {
      if (!protocol.simulator) continue;
      const started = await protocol.simulator.start({ receiptDelayMs, webhooksUrl });
      simulators.push(started);
      service.logger.info(started.started.fields, started.started.message);
    }
    for (const one of simulators) for (const other of simulators) if (other !== one) one.attach?.(other);
    const infoFile = simulatorInfoPath(service.config.dataDir);
    const info = Object.assign({}, ...simulators.map((s) => s.info));
    writeFileSync(infoFile, `${JSON.stringify({ ...info, pid: process.pid, startedAt: new Date().toISOString() })}\n`);
    const running = new BundledSimulators(simulators, infoFile);
    service.logger.warn(
      { event: 'simulator.serving', channels: running.channels() },
      'no carrier configured: every send goes to the bundled simulator and nothing leaves this machine (YONA_SIMULATORS=off in production)',
    );
    return running;
  }

  /** The carriers bound to them. */
  setup(): CarrierSetup {
    return { carriers: this.simulators.map((s) => s.carrier), routes: [] };
  }

  /** The channels they serve ('sms', 'voice'). */
  channels(): CarrierChannel[] {
    return this.simulators.map((s) => carrierChannel(s.carrier.protocol));
  }

  /** Stops them and removes simulator.json, unless another process wrote it since. */
  async stop(): Promise<void> {
    for (const simulator of this.simulators) await simulator.stop();
    try {
      const info = JSON.parse(readFileSync(this.infoFile, 'utf8')) as { pid?: number };
      if (info.pid === process.pid) rmSync(this.infoFile, { force: true });
    } catch {
      // already gone, or not ours to remove
    }
  }
}
