// `yona smsc-sim`: the SMSC simulator on its own, as a carrier for tests and trials. Its options, checked (a
// ConfigError names the option at fault), the simulator started, and the lines that say where it listens.
import { writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { ConfigError } from '../../domain/errors.ts';
import type { CliValues } from '../protocol-cli.ts';
import type { SimulatorCommand, StartedCommand } from '../protocol-simulator.ts';
import { SIM_ID_FORMATS, SmscSimulator, type SimIdFormat } from '../simulator/index.ts';
import { readSimulatorTls, selfSignedSimulatorTls, type SimulatorTls } from '../simulator/tls.ts';

function port(text: string | undefined, what: string, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) > 65535)
    throw new ConfigError(`${what} must be a port number, got "${text}"`);
  return Number(text);
}

// --tls-cert/--tls-key: the operator's pair; --tls alone: a self-signed certificate kept in the data dir.
async function tlsFromArgs(values: CliValues, dataDir: string): Promise<SimulatorTls | undefined> {
  const cert = values['tls-cert'] as string | undefined;
  const key = values['tls-key'] as string | undefined;
  if ((cert === undefined) !== (key === undefined)) throw new ConfigError('--tls-cert and --tls-key go together');
  if (cert !== undefined && key !== undefined) {
    try {
      return readSimulatorTls(resolve(cert), resolve(key));
    } catch (err) {
      throw new ConfigError(`cannot read --tls-cert/--tls-key: ${(err as Error).message}`);
    }
  }
  return values.tls ? selfSignedSimulatorTls(join(dataDir, 'tls')) : undefined;
}

/** The file in its data dir where `yona smsc-sim` leaves the messages it received when it stops. */
export const RECEIVED_FILE = 'smsc-sim-received.json';

async function start(values: CliValues, dataDir: string): Promise<StartedCommand> {
  const text = (key: string) => values[key] as string | undefined;
  const delay = text('receipt-delay');
  if (delay !== undefined && !/^\d+$/.test(delay))
    throw new ConfigError(`--receipt-delay must be milliseconds, got "${delay}"`);
  const idFormat = text('id-format') ?? 'text';
  if (!(SIM_ID_FORMATS as readonly string[]).includes(idFormat))
    throw new ConfigError(`--id-format must be one of ${SIM_ID_FORMATS.join(', ')}, got "${idFormat}"`);
  const maxBinds = text('max-binds');
  if (maxBinds !== undefined && !/^[1-9]\d*$/.test(maxBinds))
    throw new ConfigError(`--max-binds must be a positive whole number, got "${maxBinds}"`);
  const host = text('host') ?? '127.0.0.1';
  if (isIP(host) === 0) throw new ConfigError(`--host must be an IP address, got "${host}"`);
  const tls = await tlsFromArgs(values, dataDir);
  const simulator = new SmscSimulator({
    systemId: text('system-id'),
    password: text('password'),
    receiptDelayMs: delay === undefined ? 200 : Number(delay),
    controlPort: port(text('control-port'), '--control-port', 0),
    tls: tls && { key: tls.key, cert: tls.cert },
    idFormat: idFormat as SimIdFormat,
    host,
    maxBinds: maxBinds === undefined ? undefined : Number(maxBinds),
  });
  const smppPort = await simulator.start(port(text('port'), '--port', 0));
  const controlUrl = `http://127.0.0.1:${simulator.controlPort()}`;
  return {
    info: { smppPort, controlUrl, ...(tls ? { tls: true, tlsCert: tls.certPath } : {}) },
    listening: (infoFile) => [
      `smsc simulator: SMPP${tls ? ' over TLS' : ''} on ${host.includes(':') ? `[${host}]` : host}:${smppPort}, control ${controlUrl} (written to ${infoFile})`,
      ...(tls
        ? [
            `TLS certificate${tls.selfSigned ? ' (self-signed)' : ''}: ${tls.certPath}; a carrier trusts it with "tls": true, "tlsCa": "${tls.certPath}"`,
          ]
        : []),
    ],
    // What it took stays countable after it is gone: its message log, written once every bind is closed.
    stop: async () => {
      await simulator.stop();
      writeFileSync(join(dataDir, RECEIVED_FILE), `${JSON.stringify({ messages: simulator.messages() })}\n`);
    },
  };
}

export const smscSimCommand: SimulatorCommand = {
  name: 'smsc-sim',
  usage:
    'usage: yona smsc-sim --port N [--host ADDR] [--max-binds N] [--control-port N] [--receipt-delay MS] [--id-format text|submit-hex|receipt-hex] [--system-id ID --password PW] ' +
    '[--tls | --tls-cert CERT.pem --tls-key KEY.pem]',
  options: {
    port: { type: 'string' },
    'control-port': { type: 'string' },
    'receipt-delay': { type: 'string' },
    'id-format': { type: 'string' },
    'system-id': { type: 'string' },
    password: { type: 'string' },
    host: { type: 'string' },
    'max-binds': { type: 'string' },
    tls: { type: 'boolean', default: false },
    'tls-cert': { type: 'string' },
    'tls-key': { type: 'string' },
  },
  required: ['port'],
  start,
};
