// `yona wa-sim` in a second process for a benchmark: the WhatsApp Cloud API simulator on loopback ports, with its
// own scratch data dir; its control channel points the signed status webhooks at the bench service.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WhatsAppSimulatorClient } from '../../src/carriers/whatsapp-cloud/simulator/index.ts';

export interface WaSimProcess {
  child: ChildProcess;
  /** The Graph API's base address (a carrier's graphUrl). */
  graphUrl: string;
  control: WhatsAppSimulatorClient;
  controlUrl: string;
  token: string;
  appSecret: string;
  /** Points its webhooks at `url`, signed with the app secret. */
  setWebhook(url: string): Promise<void>;
  /** The simulator process's CPU time so far, in microseconds (user + system, from /proc). */
  cpuMicros(): number;
  stop(): Promise<void>;
}

/** Starts `yona wa-sim --port 0 --control-port 0 --status-delay MS`; resolves once it listens (or fails after 20 s). */
export async function startWaSim(statusDelayMs: number): Promise<WaSimProcess> {
  const root = join(import.meta.dirname, '../..');
  const dir = mkdtempSync(join(tmpdir(), 'yona-bench-wa-'));
  const token = 'bench-graph-token';
  const appSecret = 'bench-app-secret';
  const child = spawn(
    process.execPath,
    [
      // The bench's own node flags (--cpu-prof and the like) apply to the simulator too.
      ...process.execArgv,
      join(root, 'bin/yona.js'),
      'wa-sim',
      '--port',
      '0',
      '--control-port',
      '0',
      '--token',
      token,
      '--app-secret',
      appSecret,
      '--status-delay',
      String(statusDelayMs),
    ],
    { env: { ...process.env, YONA_DATA_DIR: dir }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const deadline = Date.now() + 20_000;
  let match: RegExpExecArray | null = null;
  while (!(match = /Cloud API on (http:\/\/127\.0\.0\.1:\d+), control (http:\/\/127\.0\.0\.1:\d+)/.exec(output))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`yona wa-sim did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const [, graphUrl, controlUrl] = match;
  return {
    child,
    graphUrl,
    controlUrl,
    control: new WhatsAppSimulatorClient(controlUrl),
    token,
    appSecret,
    async setWebhook(url) {
      const res = await fetch(`${controlUrl}/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url, appSecret }),
      });
      if (!res.ok) throw new Error(`wa-sim POST /webhook answered ${res.status}`);
    },
    cpuMicros() {
      // utime and stime are fields 14 and 15 of /proc/PID/stat, in clock ticks (100 per second on Linux).
      const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) * 10_000;
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
