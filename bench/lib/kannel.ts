// Kannel 1.4.5 beside Yona: the accept target is Kannel's accept rate on the same machine, and these machines
// are shared and noisy, so `bench accept --beside-kannel` measures both in one run. This starts the
// Kannel reference kit, the anchor (sendsms -> smsbox -> bearerbox -> SMPP sink, memory-only queue, no receipts) from its config
// template and sink, and the bench drives it with the same load generator as Yona (runLoad: autocannon in a
// second process, same connections and duration). The anchor's own load generator costs about twice
// autocannon's CPU per request, which on two shared cores held Kannel to 0.7-0.8 of the rate it reaches with the
// client Yona gets. Setup: `apt-get install -y kannel`; the anchor lives in ../shared/bench/kannel (or
// KANNEL_BENCH_DIR) and its sink needs smpp, which NODE_PATH finds in our node_modules.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { stopProcess } from '../../test/helpers/kannel.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const BEARERBOX = '/usr/sbin/bearerbox';
const SMSBOX = '/usr/sbin/smsbox';
/** Fixed by the anchor's config template. */
const ADMIN_STATUS = 'http://127.0.0.1:13000/status.txt?password=bench';
const SENDSMS = 'http://127.0.0.1:13013/cgi-bin/sendsms';

/** Where the anchor lives (its SMSC sink needs nothing else installed). */
export function anchorDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.KANNEL_BENCH_DIR ?? `${REPO}../shared/bench/kannel`;
}

/** The anchor's folder with Kannel installed beside it, or a clear error saying what is missing. */
export function kannelAnchorDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = anchorDir(env);
  if (!existsSync(`${dir}/kannel/kannel.conf.tmpl`))
    throw new Error(`--beside-kannel: no Kannel anchor at ${dir} (set KANNEL_BENCH_DIR)`);
  if (!existsSync(BEARERBOX)) throw new Error('--beside-kannel: Kannel is not installed (apt-get install -y kannel)');
  return dir;
}

export interface RunningKannel {
  /** A single-recipient sendsms GET, the request the load repeats. */
  sendUrl: string;
  /** bearerbox's and smsbox's process ids (the gateway without its sink), for their CPU. */
  gatewayPids: number[];
  /** The kit's SMSC sink, started with the gateway. */
  sinkPid: number;
  stop(): Promise<void>;
}

/** How the anchor runs: for accepts only (the default), or with a receipt per message and a given SMPP window. */
export interface KannelOptions {
  /** The sink sends a delivery receipt per message, after `receiptDelayMs`. */
  receipts?: boolean;
  receiptDelayMs?: number;
  /** Kannel's `max-pending-submits` (its SMPP window); 10 by default, as the anchor's own runs. */
  window?: number;
}

/** The anchor's template with its settings: memory-only queue, one transceiver bind, no throughput cap. */
function renderConfig(dir: string, workDir: string, smppPort: number, window: number): string {
  const values: Record<string, string> = {
    KDIR: workDir,
    LOG_LEVEL: '1',
    STORE_LINES: '# no store-type: queue is memory-only',
    SMPP_PORT: String(smppPort),
    MAX_PENDING: String(window),
    THROUGHPUT_LINE: '# throughput: unlimited',
    BIND_LINES: 'transceiver-mode = true',
  };
  return readFileSync(`${dir}/kannel/kannel.conf.tmpl`, 'utf8').replace(
    /\$\{(\w+)\}/g,
    (whole, name: string) => values[name] ?? whole,
  );
}

/** The anchor's SMSC sink (smsc-sink.js, with `args`) on a random loopback port, in a second process, once it listens. */
export async function startAnchorSink(dir: string, args: string[]): Promise<{ child: ChildProcess; port: number }> {
  const port = 21000 + Math.floor(Math.random() * 11000); // below the ephemeral ports (32768 and up)
  const child = spawn(process.execPath, [`${dir}/smsc-sink.js`, '--port', String(port), '--quiet', '1', ...args], {
    env: { ...process.env, NODE_PATH: process.env.NODE_PATH ?? `${REPO}node_modules` },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // It prints a `listening` line first, then per-second counters (read and dropped).
  const listening = await new Promise<boolean>((resolve) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('"listening"')) resolve(true);
      if (out.length > 100_000) out = '';
    });
    child.once('exit', () => resolve(false));
    setTimeout(() => resolve(false), 30_000);
  });
  if (!listening) throw new Error('the Kannel SMSC sink did not start');
  return { child, port };
}

async function statusText(): Promise<string> {
  try {
    const res = await request(ADMIN_STATUS);
    return await res.body.text();
  } catch {
    return '';
  }
}

/** Starts sink, bearerbox and smsbox (in that order); resolves once the SMSC is online and a send is accepted. */
export async function startKannel(dir: string, options: KannelOptions = {}): Promise<RunningKannel> {
  const workDir = mkdtempSync(join(tmpdir(), 'yona-bench-kannel-'));
  const conf = join(workDir, 'kannel.conf');
  const started: ChildProcess[] = [];
  const stop = async () => {
    for (const child of started.reverse()) await stopProcess(child);
    rmSync(workDir, { recursive: true, force: true });
  };
  try {
    const sinkArgs = options.receipts
      ? ['--dlr', '1', '--dlr-delay-ms', String(options.receiptDelayMs ?? 0)]
      : ['--dlr', '0'];
    const sink = await startAnchorSink(dir, sinkArgs);
    started.push(sink.child);
    writeFileSync(conf, renderConfig(dir, workDir, sink.port, options.window ?? 10));
    started.push(spawn(BEARERBOX, ['-v', '4', conf], { stdio: 'ignore' }));
    await sleep(2000);
    started.push(spawn(SMSBOX, ['-v', '4', conf], { stdio: 'ignore' }));
    const sendUrl = `${SENDSMS}?${new URLSearchParams({ username: 'bench', password: 'bench', from: '12345', to: '447910000001', text: 'benchmark message' })}`;
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (started.some((c) => c.exitCode !== null))
        throw new Error('Kannel exited while starting (is another Kannel holding ports 13000-13013?)');
      if ((await statusText()).includes('online')) {
        const probe = await request(sendUrl).catch(() => undefined);
        const body = probe ? await probe.body.text() : '';
        if (probe?.statusCode === 202) break;
        if (Date.now() > deadline) throw new Error(`Kannel refused the probe send: ${probe?.statusCode} ${body}`);
      } else if (Date.now() > deadline) {
        throw new Error('Kannel did not come up within 30 s (no SMSC online)');
      }
      await sleep(250);
    }
    return { sendUrl, gatewayPids: started.slice(1).map((c) => c.pid!), sinkPid: sink.child.pid!, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
