// Child process side of runLoad: receives options, runs autocannon, sends back figures.
import autocannon from 'autocannon';

process.once('message', async (o) => {
  const result = await autocannon({
    url: o.url,
    method: 'POST',
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
    },
    () => process.exit(0),
  );
});
