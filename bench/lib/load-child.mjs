// Child process side of runLoad: receives options, runs autocannon, sends back figures.
import autocannon from 'autocannon';

process.once('message', async (o) => {
  const result = await autocannon({
    url: o.url,
    method: o.body === undefined ? 'GET' : 'POST',
    headers: o.headers,
    body: o.body,
    connections: o.connections,
    pipelining: o.pipelining ?? 1,
    duration: o.durationSeconds,
    tlsOptions: { rejectUnauthorized: false },
  });
  process.send(
    {
      requests_per_s: Math.round(result.requests.average),
      p50_ms: result.latency.p50,
      p99_ms: result.latency.p99,
      total: result.requests.total,
      non_2xx: result.non2xx,
      errors: result.errors + result.timeouts,
      // This process's CPU per request (autocannon), to tell a busy load generator from a slow service.
      client_cpu_us_per_request: Math.round(
        (process.cpuUsage().user + process.cpuUsage().system) / Math.max(result.requests.total, 1),
      ),
    },
    () => process.exit(0),
  );
});
