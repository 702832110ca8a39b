// The call simulator `yona serve` places voice sends on when no carrier is configured: a SIP trunk on loopback.
import { CallSimulator } from '../simulator/index.ts';
import type { BundledSimulator, ProtocolSimulator } from '../protocol-simulator.ts';
import type { SipTrunkConfig } from './connector.ts';
import { sipSimCommand } from './simulator-command.ts';

export const sipSimulator: ProtocolSimulator = {
  command: sipSimCommand,
  async start(): Promise<BundledSimulator> {
    const simulator = new CallSimulator();
    const port = await simulator.start(0);
    const carrier: SipTrunkConfig = {
      protocol: 'sip',
      name: 'simulator-voice',
      host: '127.0.0.1',
      port,
      callerId: '035550000',
      localIp: '127.0.0.1',
      maxCalls: 100,
      callsPerSecond: 0,
      ringTimeoutMs: 30_000,
      // As a configured trunk's default: its health shows in /healthz and `yona admin carriers`.
      optionsIntervalMs: 30_000,
    };
    return {
      carrier,
      started: {
        fields: { sip: `127.0.0.1:${port}` },
        message: 'bundled call simulator started (a SIP trunk for voice sends)',
      },
      info: {},
      instance: simulator,
      stop: () => simulator.stop(),
    };
  },
};
