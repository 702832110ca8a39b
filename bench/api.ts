// `npm run bench -- api [--store postgres] [--seconds N]`: balance requests/s and p50/p99 latency over
// keep-alive HTTP and HTTPS, with the load generator in a second process. Target: >= 10,000/s over HTTP.
import { benchStore, peakRssMb, startBenchService } from './lib/service.ts';
import { runLoad } from './lib/load.ts';

const secondsArg = process.argv.indexOf('--seconds');
const seconds = secondsArg >= 0 ? Number(process.argv[secondsArg + 1]) : 10;
const store = benchStore();
const bench = await startBenchService(store);
try {
  await bench.admin('create-account', 'bench', '--password', 'bench-password', '--credits', '100');
  const token = (await bench.admin('create-token', 'bench')).at(-1)!;
  const load = {
    body: JSON.stringify({ balance: { user: { username: 'bench' } } }),
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    connections: 50,
    durationSeconds: seconds,
  };
  const http = await runLoad({ ...load, url: `${bench.httpUrl}/api` });
  const https = await runLoad({ ...load, url: `${bench.httpsUrl}/api` });
  console.log(JSON.stringify({
    bench: 'api', operation: 'balance', store, seconds, connections: load.connections,
    http, https, target_http_rps: 10_000, meets_target: http.requests_per_s >= 10_000 && http.non_2xx === 0,
    peak_rss_mb: await peakRssMb(),
  }));
} finally {
  await bench.close();
}
