// `yona smsc-sim`, `yona sip-sim` and `yona wa-sim` (a protocol's standalone simulator) and `yona sim mo | messages
// | calls` (talk to a running simulator through its control channel: the one `yona serve` started, registered in
// ${YONA_DATA_DIR}/simulator.json, else the one standalone simulator registered in ${YONA_DATA_DIR}/simulators/,
// or the one given with --control URL; with --channel whatsapp, the WhatsApp simulator's channel, registered as
// `whatsappControlUrl`). Each simulator writes and removes only its own registration.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { protocols } from '../carriers/index.ts';
import type { CliValues } from '../carriers/protocol-cli.ts';
import type { SimulatorCommand, StartedCommand } from '../carriers/protocol-simulator.ts';
import { SimulatorClient } from '../carriers/simulator/index.ts';
import {
  type SentWhatsAppMessage,
  waSimCommand,
  WhatsAppSimulatorClient,
} from '../carriers/whatsapp-cloud/simulator/index.ts';
import { ConfigError } from '../domain/errors.ts';
import { normalizePhone } from '../domain/phone.ts';
import { simulatorInfoPath, standaloneSimulatorsDir } from '../delivery/bundled-simulators.ts';
import { readSetting } from '../config.ts';
import { formatIso } from '../domain/dates.ts';
import { alive } from './serve-lock.ts';
import { serverDataDir } from './store-location.ts';
import { UsageError } from './usage-error.ts';

type Out = (line: string) => void;

function fail(message: string): never {
  throw new UsageError(message);
}

const dataDir = () => serverDataDir();

/** The standalone simulator command of that name, from the protocol that brings it. */
function simulatorCommand(name: string): SimulatorCommand {
  for (const [, protocol] of protocols())
    if (protocol.simulator?.command?.name === name) return protocol.simulator.command;
  fail(`no protocol brings a simulator command "${name}"`);
}

/**
 * Runs `yona smsc-sim` until SIGINT/SIGTERM (or `until` resolves); prints where it listens and, with TLS, the
 * certificate.
 */
export async function runSmscSim(args: string[], out: Out = console.log, until?: Promise<void>): Promise<void> {
  await runSimulatorCommand(simulatorCommand('smsc-sim'), args, out, until);
}

/** Runs `yona wa-sim` (the WhatsApp Cloud API simulator) until SIGINT/SIGTERM (or `until` resolves). */
export async function runWaSim(args: string[], out: Out = console.log, until?: Promise<void>): Promise<void> {
  await runSimulatorCommand(waSimCommand, args, out, until);
}

/** Runs the standalone simulator `yona NAME` (smsc-sim, sip-sim) until SIGINT/SIGTERM. */
export async function runSimulator(name: string, args: string[]): Promise<void> {
  await runSimulatorCommand(simulatorCommand(name), args, console.log);
}

async function runSimulatorCommand(
  command: SimulatorCommand,
  args: string[],
  out: Out,
  until?: Promise<void>,
): Promise<void> {
  const { values } = parseArgs({ args, options: command.options });
  if (command.required.some((option) => values[option] === undefined)) fail(command.usage);
  let started: StartedCommand;
  try {
    started = await command.start(values as CliValues, dataDir());
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
  // Its own registration: the server's simulator.json and other simulators' files stay as they are.
  const infoFile = join(standaloneSimulatorsDir(dataDir()), `${command.name}-${process.pid}.json`);
  mkdirSync(standaloneSimulatorsDir(dataDir()), { recursive: true });
  writeFileSync(
    infoFile,
    `${JSON.stringify({ ...started.info, command: command.name, pid: process.pid, startedAt: new Date().toISOString() })}\n`,
  );
  for (const line of started.listening(infoFile)) out(line);
  await new Promise<void>((done) => {
    let stopping = false;
    const stop = () => {
      if (stopping) return;
      stopping = true;
      void started.stop().finally(() => {
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

// Whether the process of that id still runs (a registration left behind by a crash does not count).
function running(pid: number | undefined): boolean {
  return pid === undefined || alive(pid);
}

/** Where a registration names a channel's control address: the SMS and calls simulators', or WhatsApp's. */
type ControlKey = 'controlUrl' | 'whatsappControlUrl';

// A registration's control channel, when its file reads and its process runs (a stopped simulator's is gone).
function registeredControl(file: string, key: ControlKey): string | undefined {
  try {
    const info = JSON.parse(readFileSync(file, 'utf8')) as Partial<Record<ControlKey, string>> & { pid?: number };
    return running(info.pid) ? info[key] : undefined;
  } catch {
    return undefined;
  }
}

function controlUrl(given: string | undefined, key: ControlKey = 'controlUrl'): string {
  if (given) return given;
  const file = simulatorInfoPath(dataDir());
  const bundled = registeredControl(file, key);
  if (bundled) return bundled;
  const dir = standaloneSimulatorsDir(dataDir());
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    // no standalone simulator ever registered here
  }
  const standalone = names.flatMap((n) => {
    const url = registeredControl(join(dir, n), key);
    return url ? [{ name: n.replace(/\.json$/, ''), url }] : [];
  });
  if (standalone.length === 1) return standalone[0].url;
  if (standalone.length > 1)
    fail(
      `several simulators run here (${standalone.map((s) => `${s.name} at ${s.url}`).join(', ')}): pass --control URL`,
    );
  if (key === 'whatsappControlUrl')
    fail(
      `no running WhatsApp simulator found (none in ${file}, and no yona wa-sim registered in ${dir}): start yona serve with no carrier configured, or yona wa-sim, or pass --control URL`,
    );
  fail(
    `no running simulator found (${file} is missing, and no yona smsc-sim or yona sip-sim registered in ${dir}): start yona serve with no carrier configured, or yona smsc-sim, or pass --control URL`,
  );
}

// Phones as the simulator sees them: international digits (0501234567 -> 972501234567).
function asInternational(phone: string): string {
  const n = normalizePhone(phone, { allowInternational: true });
  return n.ok ? n.e164 : phone.replace(/^\+/, '');
}

// What the simulator answered a message with, for a person.
function receiptWords(state: string | undefined): string {
  if (state === undefined) return 'no receipt sent (yet)';
  return state === 'DELIVRD' ? 'delivered (receipt DELIVRD)' : `receipt ${state}`;
}

/** A listing: one JSON array with --json, else a line (or two) per item. */
function listing(json: boolean, out: Out) {
  return <T>(items: T[], what: string, line: (item: T) => string): void => {
    if (json) out(JSON.stringify(items));
    else if (items.length === 0) out(`no ${what}`);
    else for (const item of items) out(line(item));
  };
}

/** A time as the operator reads it (YONA_TIME_ZONE). */
function localTime(): (ms: number) => string {
  const zone = readSetting('YONA_TIME_ZONE');
  return (ms) => formatIso(ms, zone);
}

/**
 * `yona sim mo --from PHONE --to NUMBER --text TEXT`, `yona sim messages [--to PHONE] [--json]` and `yona sim calls
 * [...]`; `mo` and `messages` with `--channel whatsapp` talk to the WhatsApp simulator.
 */
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
      channel: { type: 'string' },
      name: { type: 'string' },
      'bsuid-only': { type: 'boolean', default: false },
    },
  });
  const channel = values.channel ?? 'sms';
  if (channel === 'whatsapp') return runWhatsAppSim(sub, values, out);
  if (channel !== 'sms') fail(`--channel must be sms or whatsapp, got "${channel}"`);
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
  const list = listing(values.json === true, out);
  const time = localTime();
  if (sub === 'messages') {
    return list(
      await client.messages(to),
      'messages',
      (m) =>
        `${time(m.receivedAt)}  to ${m.destination}  from ${m.source}  ${m.parts} part${m.parts === 1 ? '' : 's'}` +
        `${m.messagePayload ? ' (message_payload)' : ''}${m.dataCoding === 8 ? ' UCS-2' : ''}  ${receiptWords(m.receipt)}\n  ${m.text.replace(/\n/g, '\n  ')}`,
    );
  }
  if (sub === 'calls') {
    return list(await client.calls(to), 'calls', (c) => {
      const media =
        c.behaviour === 'answer'
          ? `  ${c.law ?? '-'}  ${c.packets} RTP packets, ${(c.durationMs / 1000).toFixed(1)} s of audio`
          : '';
      return `${time(c.startedAt)}  to ${c.to}  from ${c.from}  ${c.behaviour}${c.endedAt === undefined ? ' (in progress)' : ''}${media}`;
    });
  }
  fail(
    'usage: yona sim <mo|messages|calls> ... (yona sim mo --from PHONE --to NUMBER --text TEXT; yona sim messages|calls [--to PHONE] [--json])',
  );
}

interface WhatsAppSimValues {
  from?: string;
  to?: string;
  text?: string;
  json?: boolean;
  control?: string;
  name?: string;
  'bsuid-only'?: boolean;
}

// What a WhatsApp user got, for a person: the text, or the template with its variables, and the statuses sent.
function whatsAppLines(m: SentWhatsAppMessage, time: (ms: number) => string): string {
  const what = m.template
    ? `template ${m.template.name} (${m.template.language})${m.template.variables.map((v, i) => ` {{${i + 1}}}=${JSON.stringify(v)}`).join('')}`
    : 'text';
  const statuses = m.statuses.length
    ? m.statuses.map((s) => s.status + (s.errorCode ? ` ${s.errorCode}` : '')).join(', ')
    : 'no status sent (yet)';
  return `${time(m.acceptedAt)}  to ${m.waId}  from ${m.business}  ${what}  ${statuses}\n  ${m.text.replace(/\n/g, '\n  ')}`;
}

/** `yona sim mo|messages --channel whatsapp`: a user writes to a business number; what each user got. */
async function runWhatsAppSim(sub: string | undefined, values: WhatsAppSimValues, out: Out): Promise<void> {
  const client = new WhatsAppSimulatorClient(controlUrl(values.control, 'whatsappControlUrl'));
  if (sub === 'mo') {
    if (!values.from || !values.to || values.text === undefined)
      fail(
        'usage: yona sim mo --channel whatsapp --from PHONE --to BUSINESS_NUMBER --text TEXT [--name NAME] [--bsuid-only] [--control URL]',
      );
    const result = await client.mo({
      from: asInternational(values.from),
      to: asInternational(values.to),
      text: values.text,
      ...(values.name ? { name: values.name } : {}),
      bsuidOnly: values['bsuid-only'] === true,
    });
    const who = result.waId ? `${result.waId} (user id ${result.userId})` : `user id ${result.userId} (phone withheld)`;
    if (values.json) out(JSON.stringify(result));
    else if (result.delivered) out(`delivered to Yona: ${result.id} from ${who}`);
    else if (result.webhookUrl)
      out(`not yet delivered to Yona (its webhook did not answer 2xx; retrying): ${result.id} from ${who}`);
    else out(`no webhook address is set in the simulator: ${result.id} from ${who} went nowhere`);
    return;
  }
  if (sub === 'messages') {
    const time = localTime();
    return listing(values.json === true, out)(
      await client.messages(values.to ? asInternational(values.to) : undefined),
      'messages',
      (m) => whatsAppLines(m, time),
    );
  }
  fail(
    'usage: yona sim <mo|messages> --channel whatsapp ... (yona sim mo --channel whatsapp --from PHONE --to BUSINESS_NUMBER --text TEXT; yona sim messages --channel whatsapp [--to PHONE] [--json])',
  );
}
