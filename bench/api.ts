// `npm run bench -- api [--store postgres] [--seconds N]`: balance requests/s and p50/p99 latency over
// keep-alive HTTP and HTTPS, with the load generator in a second process. Target: >= 10,000/s over HTTP.
import { loadavg } from 'node:os';
import { Agent, request } from 'undici';
import { benchStore, peakRssMb, startBenchService } from './lib/service.ts';
import { runLoad } from './lib/load.ts';

const secondsArg = process.argv.indexOf('--seconds');
const seconds = secondsArg >= 0 ? Number(process.argv[secondsArg + 1]) : 10;
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
  const expectStatus0 = async (url: string, when: string) => {
    const res = await request(url, { method: 'POST', body: load.body, headers: load.headers, dispatcher: insecure });
    const text = await res.body.text();
    let status: unknown;
    try {
      status = (JSON.parse(text) as { status?: unknown }).status;
    } catch {
      status = undefined;
    }
    if (res.statusCode !== 200 || status !== 0) throw new Error(`bench aborted: ${when} reply from ${url} is not status 0: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
  };
  // Service CPU per request is measured too: on a shared, busy machine it is the figure that stays honest.
  const measured = async (url: string) => {
    await expectStatus0(url, 'sample');
    const cpu = process.cpuUsage();
    const result = await runLoad({ ...load, url });
    const used = process.cpuUsage(cpu);
    const cpuUsPerRequest = (used.user + used.system) / Math.max(1, result.total);
    await expectStatus0(url, 'post-load');
    return { ...result, service_cpu_us_per_request: Math.round(cpuUsPerRequest), service_rps_per_core: Math.round(1e6 / cpuUsPerRequest) };
  };
  const http = await measured(`${bench.httpUrl}/api`);
  const https = await measured(`${bench.httpsUrl}/api`);
  console.log(JSON.stringify({
    bench: 'api', operation: 'balance', store, seconds, connections: load.connections,
    http, https, target_http_rps: 10_000, meets_target: http.requests_per_s >= 10_000 && http.non_2xx === 0,
    peak_rss_mb: await peakRssMb(),
    load_average_1m: Number(loadavg()[0].toFixed(2)),
  }));
} finally {
  await insecure.close();
  await bench.close();
}
