// A standalone `yona smsc-sim` as its own process for end-to-end tests, driven through its HTTP control
// channel (GET /stats, /messages; POST /throttle, /fail-next, /disconnect, /receipt-delay, /mo).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReceivedMessage, SimulatorStats } from '../../src/carriers/simulator/index.ts';
import { RECEIVED_FILE } from '../../src/carriers/smpp/simulator-command.ts';
import { stopChild } from './stop-child.ts';

const bin = join(import.meta.dirname, '../../bin/yona.js');

export interface SmscSimProcess {
  smppPort: number;
  controlUrl: string;
  /** POSTs a JSON body to a control endpoint; fails on a non-2xx answer. */
  post(path: string, body?: Record<string, unknown>): Promise<unknown>;
  stats(): Promise<SimulatorStats>;
  messages(to?: string): Promise<ReceivedMessage[]>;
  /** SIGTERM; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** After stop: every message it received, as it wrote them when it stopped (empty when it wrote none). */
  receivedAtExit: ReceivedMessage[];
}

async function call(url: string, method: string, body?: unknown): Promise<unknown> {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as unknown;
  if (!res.ok) throw new Error(`${method} ${url}: HTTP ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Starts `yona smsc-sim --port 0 --control-port 0 ...extra` (credentials yona/secret) and reads back its ports. */
export async function startSmscSimProcess(extra: string[] = []): Promise<SmscSimProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'yona-smsc-sim-'));
  const args = [
    bin,
    'smsc-sim',
    '--port',
    '0',
    '--control-port',
    '0',
    '--system-id',
    'yona',
    '--password',
    'secret',
    ...extra,
  ];
  const child: ChildProcess = spawn(process.execPath, args, {
    env: { ...process.env, YONA_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const deadline = Date.now() + 20_000;
  let match: RegExpExecArray | null = null;
  while (!(match = /SMPP on 127\.0\.0\.1:(\d+), control (http:\/\/127\.0\.0\.1:\d+)/.exec(output))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
      throw new Error(`yona smsc-sim did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const controlUrl = match[2];
  const sim: SmscSimProcess = {
    smppPort: Number(match[1]),
    controlUrl,
    receivedAtExit: [],
    post: (path, body = {}) => call(`${controlUrl}${path}`, 'POST', body),
    stats: () => call(`${controlUrl}/stats`, 'GET') as Promise<SimulatorStats>,
    messages: async (to) =>
      ((await call(`${controlUrl}/messages${to ? `?to=${to}` : ''}`, 'GET')) as { messages: ReceivedMessage[] })
        .messages,
    async stop() {
      const code = await stopChild(child, exited);
      try {
        sim.receivedAtExit = (
          JSON.parse(readFileSync(join(dataDir, RECEIVED_FILE), 'utf8')) as {
            messages: ReceivedMessage[];
          }
        ).messages;
      } catch {
        sim.receivedAtExit = [];
      }
      rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
  return sim;
}

/** The `yona admin add-carrier` arguments for carrier `name` on `sim` (the credentials every sim here takes), then `extra`. */
export function simCarrierArgs(name: string, sim: SmscSimProcess, ...extra: string[]): string[] {
  const login = ['--system-id', 'yona', '--password', 'secret'];
  return ['add-carrier', name, '--host', '127.0.0.1', '--port', String(sim.smppPort), ...login, ...extra];
}
