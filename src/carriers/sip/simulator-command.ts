// `yona sip-sim`: the bundled call simulator on its own, a SIP test trunk for a Yona that has real carriers (the
// bundled one runs only while no carrier is configured). It answers calls by the dialled number's last digits
// (uas.ts) and lists them on its control channel (GET /calls, GET /stats), where `yona sim calls` finds them.
import { ConfigError } from '../../domain/errors.ts';
import type { CliValues } from '../protocol-cli.ts';
import type { SimulatorCommand, StartedCommand } from '../protocol-simulator.ts';
import { CallSimulator, startControlServer, type SimulatorControl } from '../simulator/index.ts';

function port(text: string | undefined, what: string): number {
  if (text === undefined) return 0;
  if (!/^\d+$/.test(text) || Number(text) > 65535)
    throw new ConfigError(`${what} must be a port number, got "${text}"`);
  return Number(text);
}

// A control channel of calls only: it has no SMS side to send from or to push back with.
function callsOnly(simulator: CallSimulator): SimulatorControl {
  const noSms = () => {
    throw new Error('yona sip-sim has no SMS side (yona smsc-sim has)');
  };
  return {
    sendInbound: async () => noSms(),
    messages: () => [],
    calls: (filter) => simulator.calls(filter),
    stats: () => ({ calls: simulator.calls().length }),
    throttle: noSms,
    failNext: noSms,
    disconnectAll: noSms,
    setReceiptDelay: noSms,
  };
}

async function start(values: CliValues): Promise<StartedCommand> {
  const sipPort = port(values.port as string | undefined, '--port');
  const controlPort = port(values['control-port'] as string | undefined, '--control-port');
  const simulator = new CallSimulator();
  const listening = await simulator.start(sipPort).catch((err: Error) => {
    throw new ConfigError(`cannot listen on UDP 127.0.0.1:${sipPort}: ${err.message}`);
  });
  const control = await startControlServer(callsOnly(simulator), controlPort).catch(async (err: Error) => {
    await simulator.stop();
    throw new ConfigError(`cannot listen on 127.0.0.1:${controlPort} (--control-port): ${err.message}`);
  });
  const address = control.address();
  const controlUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : controlPort}`;
  return {
    info: { sipPort: listening, controlUrl },
    listening: (infoFile) => [
      `sip simulator: SIP (UDP) on 127.0.0.1:${listening}, control ${controlUrl} (written to ${infoFile})`,
      `a trunk reaches it with: yona admin add-carrier NAME --protocol sip --settings '{"host":"127.0.0.1","port":${listening},"callerId":"035550000"}'`,
    ],
    stop: async () => {
      await new Promise<void>((resolve) => control.close(() => resolve()));
      await simulator.stop();
    },
  };
}

export const sipSimCommand: SimulatorCommand = {
  name: 'sip-sim',
  usage: 'usage: yona sip-sim --port N [--control-port N]',
  options: {
    port: { type: 'string' },
    'control-port': { type: 'string' },
  },
  required: ['port'],
  start,
};
