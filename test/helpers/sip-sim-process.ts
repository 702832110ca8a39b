// A standalone `yona sip-sim` as its own process for end-to-end tests: a SIP test trunk on loopback whose calls
// are read through its HTTP control channel (GET /calls).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { ReceivedCall } from '../../src/carriers/simulator/index.ts';
import { stopChild } from './stop-child.ts';

const bin = join(import.meta.dirname, '../../bin/yona.js');

export interface SipSimProcess {
  sipPort: number;
  controlUrl: string;
  calls(to?: string): Promise<ReceivedCall[]>;
  output(): string;
  /** SIGTERM; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `yona sip-sim --port 0 --control-port 0` with `env` (its YONA_DATA_DIR) and reads back its ports. */
export async function startSipSimProcess(env: NodeJS.ProcessEnv): Promise<SipSimProcess> {
  const child: ChildProcess = spawn(process.execPath, [bin, 'sip-sim', '--port', '0', '--control-port', '0'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const deadline = Date.now() + 20_000;
  let match: RegExpExecArray | null = null;
  while (!(match = /SIP \(UDP\) on 127\.0\.0\.1:(\d+), control (http:\/\/127\.0\.0\.1:\d+)/.exec(output))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`yona sip-sim did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const controlUrl = match[2];
  return {
    sipPort: Number(match[1]),
    controlUrl,
    output: () => output,
    calls: async (to) =>
      ((await (await fetch(`${controlUrl}/calls${to ? `?to=${to}` : ''}`)).json()) as { calls: ReceivedCall[] }).calls,
    async stop() {
      const code = await stopChild(child, exited);
      return code;
    },
  };
}
