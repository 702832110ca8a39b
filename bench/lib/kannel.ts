// Kannel 1.4.5 beside Yona: the accept target is Kannel's accept rate on the same machine, and these machines
// are shared and noisy, so `bench accept --beside-kannel` measures both in one run. This runs the workplace's
// Kannel anchor (sendsms -> smsbox -> bearerbox -> SMPP sink, memory store, no receipts) and returns its HTTP
// accepts per second. Setup: `apt-get install -y kannel`; the anchor lives in ../shared/bench/kannel (or
// KANNEL_BENCH_DIR) and its load generator needs smpp and undici, which NODE_PATH finds in our node_modules.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const BEARERBOX = '/usr/sbin/bearerbox';

/** The anchor's folder, or a clear error saying what is missing. */
export function kannelAnchorDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.KANNEL_BENCH_DIR ?? `${REPO}../shared/bench/kannel`;
  if (!existsSync(`${dir}/run-kannel.sh`)) throw new Error(`--beside-kannel: no Kannel anchor at ${dir} (set KANNEL_BENCH_DIR)`);
  if (!existsSync(BEARERBOX)) throw new Error('--beside-kannel: Kannel is not installed (apt-get install -y kannel)');
  return dir;
}

/** Runs Kannel for `requests` sends over `connections` keep-alive connections; resolves its HTTP accepts/s. */
export function kannelAcceptRate(dir: string, requests: number, connections: number): Promise<number> {
  const env = {
    ...process.env, N: String(requests), C: String(connections), DLR: '0', REPS: '1',
    NODE_PATH: process.env.NODE_PATH ?? `${REPO}node_modules`,
  };
  const child = spawn('bash', [`${dir}/run-kannel.sh`], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('{') && l.includes('"http_accept_per_s"'));
      const figures = line ? (JSON.parse(line) as { reason: string; errors: number; http_accept_per_s: number }) : undefined;
      if (code !== 0 || !figures || figures.reason !== 'done' || figures.errors > 0) {
        reject(new Error(`Kannel run failed (exit ${code}): ${(line ?? err.trim().split('\n').slice(-3).join(' ')) || 'no figures'}`));
      } else {
        resolve(figures.http_accept_per_s);
      }
    });
  });
}
