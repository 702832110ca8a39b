// `yona wa-sim` in a second process for a benchmark: the WhatsApp Cloud API simulator on loopback ports, with its
// own scratch data dir; its control channel points the signed status webhooks at the bench service.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WhatsAppSimulatorClient } from '../../src/carriers/whatsapp-cloud/simulator/index.ts';
import { spawnWaSim } from '../../test/helpers/wa-sim-process.ts';

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
  const token = 'bench-graph-token';
  const appSecret = 'bench-app-secret';
  const { child, graphUrl, controlUrl, stop } = await spawnWaSim({
    token,
    appSecret,
    dataDir: mkdtempSync(join(tmpdir(), 'yona-bench-wa-')),
    extra: ['--status-delay', String(statusDelayMs)],
    // The bench's own node flags (--cpu-prof and the like) apply to the simulator too.
    nodeArgs: process.execArgv,
  });
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
      await stop();
    },
  };
}
