// Shared setup for carrier tests: a simulator, a carrier bound to it, and polling.
import { SmppCarrier, type SmppCarrierConfig } from '../../src/carriers/smpp/connector.ts';
import { SmscSimulator, type SimulatorOptions } from '../../src/carriers/simulator/index.ts';
import type { InboundSms, Receipt } from '../../src/carriers/types.ts';

/** Carrier settings for loopback tests, with short timers. */
export function carrierConfig(port: number, over: Partial<SmppCarrierConfig> = {}): SmppCarrierConfig {
  return {
    name: 'sim',
    host: '127.0.0.1',
    port,
    systemId: 'yona',
    password: 'secret',
    bindMode: 'transceiver',
    binds: 1,
    windowSize: 10,
    maxSubmitsPerSecond: 0,
    tls: false,
    enquireLinkMs: 1000,
    responseTimeoutMs: 1000,
    reconnectBaseMs: 50,
    reconnectMaxMs: 400,
    ...over,
  };
}

/** A started simulator and a started carrier bound to it, collecting receipts and inbound messages. */
export async function pair(sim: SimulatorOptions = {}, carrier: Partial<SmppCarrierConfig> = {}) {
  const simulator = new SmscSimulator({ systemId: 'yona', password: 'secret', receiptDelayMs: 20, ...sim });
  const port = await simulator.start();
  const smpp = new SmppCarrier(carrierConfig(port, carrier));
  const receipts: Receipt[] = [];
  const inbound: InboundSms[] = [];
  smpp.onReceipt((r) => void receipts.push(r));
  smpp.onInbound((m) => void inbound.push(m));
  await smpp.start();
  const close = async () => {
    await smpp.stop();
    await simulator.stop();
  };
  return { simulator, port, carrier: smpp, receipts, inbound, close };
}

/** Polls until `check` returns true, failing after `timeoutMs`. */
export async function waitFor(check: () => boolean, timeoutMs = 3000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** An outbound SMS with defaults. */
export function sms(destination: string, text: string, messageId = 1) {
  return { messageId, source: 'Yona', destination, text };
}
