// `yona smsc-sim` in a second process for a benchmark: the bundled SMSC simulator on a loopback port, with its
// own scratch data dir, and the carrier settings that bind a bench service to it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CARRIER_TIMER_DEFAULTS } from '../../src/carriers/smpp/settings.ts';
import type { SmppCarrierConfig } from '../../src/carriers/smpp/connector.ts';
import { RECEIVED_FILE } from '../../src/carriers/smpp/simulator-command.ts';

export interface SmscSimProcess {
  child: ChildProcess;
  port: number;
  /** Its HTTP control channel (GET /stats). */
  controlUrl: string;
  /** Carrier settings binding to it (transceiver binds, no throughput cap). */
  carrier(over?: Partial<SmppCarrierConfig>): SmppCarrierConfig;
  stop(): void;
  /** Stops it (SIGTERM) and reads the messages it received from the file it leaves (smsc-sim-received.json). */
  stopAndReadReceived(): Promise<Array<{ destination: string }>>;
}

/** Starts `yona smsc-sim --port P --receipt-delay MS`; resolves once it says it listens (or fails after 20 s). */
export async function startSmscSim(receiptDelayMs: number): Promise<SmscSimProcess> {
  const root = join(import.meta.dirname, '../..');
  const dir = mkdtempSync(join(tmpdir(), 'yona-bench-smsc-'));
  const port = 21000 + Math.floor(Math.random() * 11000); // below the ephemeral ports (32768 and up)
  const child = spawn(
    process.execPath,
    [join(root, 'bin/yona.js'), 'smsc-sim', '--port', String(port), '--receipt-delay', String(receiptDelayMs)],
    { env: { ...process.env, YONA_DATA_DIR: dir }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  // The data dir goes once the simulator has exited (it writes its received list there as it stops).
  const stop = () => {
    if (child.exitCode !== null || child.signalCode !== null) rmSync(dir, { recursive: true, force: true });
    else {
      child.once('exit', () => rmSync(dir, { recursive: true, force: true }));
      child.kill('SIGTERM');
    }
  };
  const stopAndReadReceived = async (): Promise<Array<{ destination: string }>> => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    try {
      return JSON.parse(readFileSync(join(dir, RECEIVED_FILE), 'utf8')).messages;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  const deadline = Date.now() + 20_000;
  while (!out.includes('SMPP on')) {
    if (Date.now() > deadline || child.exitCode !== null) {
      stop();
      throw new Error(`yona smsc-sim did not start: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const controlUrl = /control (http:\/\/\S+)/.exec(out)?.[1] ?? '';
  return { child, port, controlUrl, stop, stopAndReadReceived, carrier: (over = {}) => simCarrier(port, over) };
}

/** Carrier settings binding a bench service to a simulator on `port` (2 transceiver binds, window 200, no cap). */
export function simCarrier(port: number, over: Partial<SmppCarrierConfig> = {}): SmppCarrierConfig {
  return {
    ...CARRIER_TIMER_DEFAULTS,
    name: 'sim',
    host: '127.0.0.1',
    port,
    systemId: 'yona',
    password: 'bench',
    bindMode: 'transceiver',
    binds: 2,
    windowSize: 200,
    maxSubmitsPerSecond: 0,
    tls: false,
    ...over,
  };
}
