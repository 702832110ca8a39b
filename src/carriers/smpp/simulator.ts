// The SMSC simulator `yona serve` binds when no carrier is configured: on loopback, with a random password, and
// its control channel (where `yona sim` sends MO texts and lists what it received, calls included).
import { randomBytes } from 'node:crypto';
import { CallSimulator, SmscSimulator } from '../simulator/index.ts';
import type { BundledSimulator, ProtocolSimulator } from '../protocol-simulator.ts';
import type { SmppCarrierConfig } from './carrier-config.ts';
import { CARRIER_TIMER_DEFAULTS } from './settings.ts';
import { smscSimCommand } from './simulator-command.ts';

export const smppSimulator: ProtocolSimulator = {
  command: smscSimCommand,
  async start({ receiptDelayMs }): Promise<BundledSimulator> {
    const password = randomBytes(6).toString('hex');
    const simulator = new SmscSimulator({ systemId: 'yona', password, receiptDelayMs, controlPort: 0 });
    const port = await simulator.start(0);
    const controlUrl = `http://127.0.0.1:${simulator.controlPort()}`;
    const carrier: SmppCarrierConfig = {
      ...CARRIER_TIMER_DEFAULTS,
      name: 'simulator',
      host: '127.0.0.1',
      port,
      systemId: 'yona',
      password,
      bindMode: 'transceiver',
      binds: 2,
      windowSize: 100,
      maxSubmitsPerSecond: 0,
      tls: false,
      reconnectBaseMs: 100,
      reconnectMaxMs: 2000,
    };
    return {
      carrier,
      started: {
        fields: { smpp: `127.0.0.1:${port}`, control: controlUrl },
        message: 'no carrier configured: bundled SMSC simulator started (yona sim talks to it)',
      },
      info: { smppPort: port, controlUrl },
      instance: simulator,
      attach(other) {
        if (other.instance instanceof CallSimulator) simulator.attachCalls(other.instance);
      },
      stop: () => simulator.stop(),
    };
  },
};
