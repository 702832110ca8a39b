// `yona smsc-sim` (a standalone SMSC simulator) and `yona sim mo | messages` (talk to a running simulator
// through its control channel, found in ${YONA_DATA_DIR}/simulator.json or given with --control URL).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { SIM_ID_FORMATS, SimulatorClient, SmscSimulator, type SimIdFormat } from '../carriers/simulator/index.ts';
import { readSimulatorTls, selfSignedSimulatorTls, type SimulatorTls } from '../carriers/simulator/tls.ts';
import { normalizePhone } from '../domain/phone.ts';
import { simulatorInfoPath } from '../delivery/carriers.ts';
import { readSetting } from '../config.ts';
import { UsageError } from './usage-error.ts';

type Out = (line: string) => void;

function fail(message: string): never {
  throw new UsageError(message);
}

function port(text: string | undefined, what: string, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) > 65535) fail(`${what} must be a port number, got "${text}"`);
  return Number(text);
}

const dataDir = () => readSetting('YONA_DATA_DIR');

const SMSC_SIM_USAGE =
  'usage: yona smsc-sim --port N [--host ADDR] [--max-binds N] [--control-port N] [--receipt-delay MS] [--id-format text|submit-hex|receipt-hex] [--system-id ID --password PW] ' +
  '[--tls | --tls-cert CERT.pem --tls-key KEY.pem]';

// --tls-cert/--tls-key: the operator's pair; --tls alone: a self-signed certificate kept in the data dir.
async function tlsFromArgs(values: {
  tls?: boolean;
  'tls-cert'?: string;
  'tls-key'?: string;
}): Promise<SimulatorTls | undefined> {
  const cert = values['tls-cert'];
  const key = values['tls-key'];
  if ((cert === undefined) !== (key === undefined)) fail('--tls-cert and --tls-key go together');
  if (cert !== undefined && key !== undefined) {
    try {
      return readSimulatorTls(resolve(cert), resolve(key));
    } catch (err) {
      fail(`cannot read --tls-cert/--tls-key: ${(err as Error).message}`);
    }
  }
  return values.tls ? selfSignedSimulatorTls(join(dataDir(), 'tls')) : undefined;
}

/** Runs the simulator until SIGINT/SIGTERM (or `until` resolves); prints where it listens and, with TLS, the certificate. */
export async function runSmscSim(args: string[], out: Out = console.log, until?: Promise<void>): Promise<void> {
  const { values } = parseArgs({
    args,
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
  });
  if (values.port === undefined) fail(SMSC_SIM_USAGE);
  const delay = values['receipt-delay'];
  if (delay !== undefined && !/^\d+$/.test(delay)) fail(`--receipt-delay must be milliseconds, got "${delay}"`);
  const idFormat = values['id-format'] ?? 'text';
  if (!(SIM_ID_FORMATS as readonly string[]).includes(idFormat))
    fail(`--id-format must be one of ${SIM_ID_FORMATS.join(', ')}, got "${idFormat}"`);
  const maxBinds = values['max-binds'];
  if (maxBinds !== undefined && !/^[1-9]\d*$/.test(maxBinds))
    fail(`--max-binds must be a positive whole number, got "${maxBinds}"`);
  const host = values.host ?? '127.0.0.1';
  if (isIP(host) === 0) fail(`--host must be an IP address, got "${host}"`);
  const tls = await tlsFromArgs(values);
  const simulator = new SmscSimulator({
    systemId: values['system-id'],
    password: values.password,
    receiptDelayMs: delay === undefined ? 200 : Number(delay),
    controlPort: port(values['control-port'], '--control-port', 0),
    tls: tls && { key: tls.key, cert: tls.cert },
    idFormat: idFormat as SimIdFormat,
    host,
    maxBinds: maxBinds === undefined ? undefined : Number(maxBinds),
  });
  const smppPort = await simulator.start(port(values.port, '--port', 0));
  const controlUrl = `http://127.0.0.1:${simulator.controlPort()}`;
  const infoFile = simulatorInfoPath(dataDir());
  mkdirSync(dataDir(), { recursive: true });
  const info = {
    smppPort,
    controlUrl,
    pid: process.pid,
    startedAt: new Date().toISOString(),
    ...(tls ? { tls: true, tlsCert: tls.certPath } : {}),
  };
  writeFileSync(infoFile, `${JSON.stringify(info)}\n`);
  out(
    `smsc simulator: SMPP${tls ? ' over TLS' : ''} on ${host.includes(':') ? `[${host}]` : host}:${smppPort}, control ${controlUrl} (written to ${infoFile})`,
  );
  if (tls)
    out(
      `TLS certificate${tls.selfSigned ? ' (self-signed)' : ''}: ${tls.certPath}; a carrier trusts it with "tls": true, "tlsCa": "${tls.certPath}"`,
    );
  await new Promise<void>((done) => {
    let stopping = false;
    const stop = () => {
      if (stopping) return;
      stopping = true;
      void simulator.stop().finally(() => {
        rmSync(infoFile, { force: true });
        done();
      });
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    void until?.then(() => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      stop();
    }); // tests stop an in-process simulator this way
  });
}

function controlUrl(given: string | undefined): string {
  if (given) return given;
  const file = simulatorInfoPath(dataDir());
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { controlUrl: string }).controlUrl;
  } catch {
    fail(
      `no running simulator found (${file} is missing): start yona serve with no carrier configured, or yona smsc-sim, or pass --control URL`,
    );
  }
}

// Phones as the simulator sees them: international digits (0501234567 -> 972501234567).
function asInternational(phone: string): string {
  const n = normalizePhone(phone, { allowInternational: true });
  return n.ok ? n.e164 : phone.replace(/^\+/, '');
}

/** `yona sim mo --from PHONE --to NUMBER --text TEXT`, `yona sim messages [--to PHONE] [--json]` and `yona sim calls [...]`. */
export async function runSim(args: string[], out: Out = console.log): Promise<void> {
  const [sub, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      text: { type: 'string' },
      json: { type: 'boolean', default: false },
      control: { type: 'string' },
    },
  });
  const client = new SimulatorClient(controlUrl(values.control));
  if (sub === 'mo') {
    if (!values.from || !values.to || values.text === undefined)
      fail('usage: yona sim mo --from PHONE --to NUMBER --text TEXT [--control URL]');
    const result = await client.mo({ from: asInternational(values.from), to: values.to, text: values.text });
    out(
      result.delivered
        ? `delivered to Yona (${result.parts} part${result.parts === 1 ? '' : 's'})`
        : `queued in the simulator (${result.parts} parts): no Yona bind acknowledged it yet`,
    );
    return;
  }
  const to = values.to ? asInternational(values.to) : undefined;
  // A listing: one JSON array with --json, else a line (or two) per item.
  const list = <T>(items: T[], what: string, line: (item: T) => string) => {
    if (values.json) out(JSON.stringify(items));
    else if (items.length === 0) out(`no ${what}`);
    else for (const item of items) out(line(item));
  };
  if (sub === 'messages') {
    return list(
      await client.messages(to),
      'messages',
      (m) =>
        `${new Date(m.receivedAt).toISOString()}  to ${m.destination}  from ${m.source}  ${m.parts} part${m.parts === 1 ? '' : 's'}` +
        `${m.messagePayload ? ' (message_payload)' : ''}${m.dataCoding === 8 ? ' UCS-2' : ''}\n  ${m.text.replace(/\n/g, '\n  ')}`,
    );
  }
  if (sub === 'calls') {
    return list(await client.calls(to), 'calls', (c) => {
      const media =
        c.behaviour === 'answer'
          ? `  ${c.law ?? '-'}  ${c.packets} RTP packets, ${(c.durationMs / 1000).toFixed(1)} s of audio`
          : '';
      return `${new Date(c.startedAt).toISOString()}  to ${c.to}  from ${c.from}  ${c.behaviour}${c.endedAt === undefined ? ' (in progress)' : ''}${media}`;
    });
  }
  fail(
    'usage: yona sim <mo|messages|calls> ... (yona sim mo --from PHONE --to NUMBER --text TEXT; yona sim messages|calls [--to PHONE] [--json])',
  );
}
