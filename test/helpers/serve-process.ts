// Real processes for end-to-end tests: `yona serve` on ephemeral ports (read back from its start-up log line)
// and `yona admin ...` runs as separate processes against the same store.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { stopChild } from './stop-child.ts';

const bin = join(import.meta.dirname, '../../bin/yona.js');

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface ServeProcess {
  httpPort: number;
  httpsPort: number;
  env: NodeJS.ProcessEnv;
  logs(): string;
  /** Runs `yona ARGS...` as its own process (asynchronously: the test's event loop keeps running). */
  cli(...args: string[]): Promise<CliRun>;
  /** SIGTERM, then SIGKILL if it has not exited within 10 s; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL (a crash); resolves once the process is gone. */
  kill(): Promise<void>;
}

/** Runs `yona ARGS...` with the given environment and collects its output. */
export function runCli(env: NodeJS.ProcessEnv, args: string[]): Promise<CliRun> {
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** The last line of a CLI's stdout (where `create-token` prints the token). */
export function lastLine(run: CliRun): string {
  return run.stdout.trim().split('\n').at(-1) ?? '';
}

/** Starts `yona serve` with `storeEnv` (from a StoreTarget) on ephemeral loopback ports; resolves once it serves. */
export async function startServeProcess(
  storeEnv: Record<string, string>,
  extra: Record<string, string> = {},
): Promise<ServeProcess> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: '',
    YONA_HTTPS_PORT: '0',
    YONA_HTTP_PORT: '0',
    YONA_HTTPS_HOST: '127.0.0.1',
    YONA_LOG_LEVEL: 'info',
    ...storeEnv,
    ...extra,
  };
  const child: ChildProcess = spawn(process.execPath, [bin, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let logs = '';
  child.stdout!.on('data', (d) => (logs += d));
  child.stderr!.on('data', (d) => (logs += d));
  let started: { https: number; http: string } | undefined;
  for (let i = 0; i < 600 && !started && child.exitCode === null; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const line = logs.split('\n').find((l) => l.includes('yona is serving'));
    if (line) started = JSON.parse(line);
  }
  if (!started) child.kill('SIGKILL');
  assert.ok(started, `yona serve did not start:\n${logs}`);
  return {
    httpsPort: started.https,
    httpPort: Number(started.http.split(':').at(-1)),
    env,
    logs: () => logs,
    cli: (...args) => runCli(env, args),
    async stop() {
      const code = await stopChild(child, exited);
      return code;
    },
    async kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
