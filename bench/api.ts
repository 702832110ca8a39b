// `npm run bench -- api [--store postgres] [--seconds N] [--warmup N]`: balance requests/s and p50/p99 latency
// over keep-alive HTTP and HTTPS, with the load generator in a second process. Target: >= 10,000/s over HTTP.
// Both listeners get a short load first (--warmup seconds each, default 2, at most 10) that is not measured:
// otherwise the first phase pays for the JIT. With --legacy-password, balance over HTTPS is measured twice in one
// run, with the bearer token and with username and password (legacy password authentication), and their ratio
// printed (target: password at least 0.8 of bearer).
import { loadavg } from 'node:os';
import { Agent, request } from 'undici';
import { benchStore, peakRssMb, startBenchService } from './lib/service.ts';
import { runLoad } from './lib/load.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const seconds = arg('--seconds', 10);
const warmupSeconds = Math.min(10, Math.max(0, Math.round(arg('--warmup', 2))));
const store = benchStore();
const bench = await startBenchService(store);
const insecure = new Agent({ connect: { rejectUnauthorized: false } });
try {
  await bench.admin('create-account', 'bench', '--password', 'bench-password', '--credits', '100');
  const token = (await bench.admin('create-token', 'bench')).at(-1)!;
  const load = {
    body: JSON.stringify({ balance: { user: { username: 'bench' } } }),
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    connections: 50,
    durationSeconds: seconds,
  };
  // autocannon counts HTTP 200s only (every API reply is 200): one reply before and after each load must be status 0.
  const expectStatus0 = async (
    url: string,
    when: string,
    sent: { body: string; headers: Record<string, string> } = load,
  ) => {
    const res = await request(url, { method: 'POST', body: sent.body, headers: sent.headers, dispatcher: insecure });
    const text = await res.body.text();
    let status: unknown;
    try {
      status = (JSON.parse(text) as { status?: unknown }).status;
    } catch {
      status = undefined;
    }
    if (res.statusCode !== 200 || status !== 0)
      throw new Error(
        `bench aborted: ${when} reply from ${url} is not status 0: HTTP ${res.statusCode} ${text.slice(0, 200)}`,
      );
  };
  // Service CPU per request is measured too: on a shared, busy machine it is the figure that stays honest.
  const measured = async (url: string, sent: { body: string; headers: Record<string, string> } = load) => {
    await expectStatus0(url, 'sample', sent);
    const cpu = process.cpuUsage();
    const result = await runLoad({ ...load, ...sent, url });
    const used = process.cpuUsage(cpu);
    const cpuUsPerRequest = (used.user + used.system) / Math.max(1, result.total);
    await expectStatus0(url, 'post-load', sent);
    return {
      ...result,
      service_cpu_us_per_request: Math.round(cpuUsPerRequest),
      service_rps_per_core: Math.round(1e6 / cpuUsPerRequest),
    };
  };
  for (const url of [`${bench.httpUrl}/api`, `${bench.httpsUrl}/api`]) {
    await expectStatus0(url, 'warm-up');
    if (warmupSeconds > 0) await runLoad({ ...load, url, durationSeconds: warmupSeconds });
  }
  if (process.argv.includes('--legacy-password')) {
    await bench.admin('legacy-password', 'bench', 'on');
    const bearer = await measured(`${bench.httpsUrl}/api`);
    const password = await measured(`${bench.httpsUrl}/api`, {
      body: JSON.stringify({ balance: { user: { username: 'bench', password: 'bench-password' } } }),
      headers: { 'content-type': 'application/json' },
    });
    const ratio = password.requests_per_s / bearer.requests_per_s;
    console.log(
      JSON.stringify({
        bench: 'api',
        operation: 'balance',
        store,
        seconds,
        connections: load.connections,
        https_bearer: bearer,
        https_password: password,
        password_to_bearer: Number(ratio.toFixed(3)),
        target_ratio: 0.8,
        meets_target: ratio >= 0.8 && password.non_2xx === 0,
        load_average_1m: Number(loadavg()[0].toFixed(2)),
      }),
    );
  } else {
    const http = await measured(`${bench.httpUrl}/api`);
    const https = await measured(`${bench.httpsUrl}/api`);
    console.log(
      JSON.stringify({
        bench: 'api',
        operation: 'balance',
        store,
        seconds,
        warmup_seconds: warmupSeconds,
        connections: load.connections,
        http,
        https,
        target_http_rps: 10_000,
        meets_target: http.requests_per_s >= 10_000 && http.non_2xx === 0,
        peak_rss_mb: await peakRssMb(),
        load_average_1m: Number(loadavg()[0].toFixed(2)),
      }),
    );
  }
} finally {
  await insecure.close();
  await bench.close();
}
