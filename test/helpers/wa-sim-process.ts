// A standalone `yona wa-sim` as its own process for end-to-end tests: the WhatsApp Cloud API simulator on
// loopback, its Graph API called as a carrier calls it and its control channel read through the client `yona
// sim` uses.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WhatsAppSimulatorClient } from '../../src/carriers/whatsapp-cloud/simulator/index.ts';
import { stopChild } from './stop-child.ts';

const bin = join(import.meta.dirname, '../../bin/yona.js');

export interface WaSimProcess {
  /** The Graph API's base address (a carrier's graph URL). */
  graphUrl: string;
  controlUrl: string;
  control: WhatsAppSimulatorClient;
  /** The data dir it registered itself in (`yona sim` run with it as YONA_DATA_DIR finds the simulator). */
  dataDir: string;
  /** POSTs `body` to Graph path `path` (e.g. /v23.0/ID/messages) with `token` (none: no Authorization header). */
  graph(path: string, body: unknown, token?: string | null): Promise<{ status: number; json: any }>;
  output(): string;
  /** SIGTERM; resolves with the exit code. */
  stop(): Promise<number | null>;
}

export const SIM_TOKEN = 'test-graph-token';
export const SIM_APP_SECRET = 'test-app-secret';

/** A `yona wa-sim` process that listens, and where. */
export interface ListeningWaSim {
  child: ChildProcess;
  graphUrl: string;
  controlUrl: string;
  output(): string;
  /** SIGTERM (SIGKILL after 10 s), then removes its data dir; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Spawns `yona wa-sim --port 0 --control-port 0 --token TOKEN --app-secret SECRET` and then `extra` with `dataDir` as
 * its data dir (removed if it fails to start), after `nodeArgs` (node's own flags); resolves once it listens, or
 * fails after 20 s.
 */
export async function spawnWaSim(options: {
  token: string;
  appSecret: string;
  dataDir: string;
  extra?: string[];
  nodeArgs?: string[];
}): Promise<ListeningWaSim> {
  const { dataDir } = options;
  const args = [
    ...(options.nodeArgs ?? []),
    bin,
    'wa-sim',
    '--port',
    '0',
    '--control-port',
    '0',
    '--token',
    options.token,
    '--app-secret',
    options.appSecret,
    ...(options.extra ?? []),
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
  while (!(match = /Cloud API on (http:\/\/127\.0\.0\.1:\d+), control (http:\/\/127\.0\.0\.1:\d+)/.exec(output))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
      throw new Error(`yona wa-sim did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const [, graphUrl, controlUrl] = match;
  return {
    child,
    graphUrl,
    controlUrl,
    output: () => output,
    async stop() {
      const code = await stopChild(child, exited);
      rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}

/** Starts `yona wa-sim --port 0 --control-port 0` with the test token and app secret, then `extra`. */
export async function startWaSimProcess(extra: string[] = []): Promise<WaSimProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'yona-wa-sim-'));
  const { graphUrl, controlUrl, output, stop } = await spawnWaSim({
    token: SIM_TOKEN,
    appSecret: SIM_APP_SECRET,
    dataDir,
    extra,
  });
  return {
    graphUrl,
    controlUrl,
    control: new WhatsAppSimulatorClient(controlUrl),
    dataDir,
    output,
    async graph(path, body, token = SIM_TOKEN) {
      const res = await fetch(`${graphUrl}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: {
          ...(token === null ? {} : { authorization: `Bearer ${token}` }),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, json: await res.json() };
    },
    stop,
  };
}
