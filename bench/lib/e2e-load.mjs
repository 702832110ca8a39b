// Child process side of bench/e2e.ts: the load generator and the reports' receiver in one process, so the time
// from a request to its report is read on one clock. Sends exactly `n` single-recipient requests (message i to
// the phone 0520000000 + i), at most `connections` in flight, to one gateway's URLs in turn, and receives the
// gateway's delivery reports on a loopback HTTP server: Yona's dlr push (a form POST naming the phone) or
// Kannel's dlr-url callback (a GET naming the message). Answers the parent over IPC with the figures once every
// accepted message has its report or `timeoutMs` has passed.
import { createServer } from 'node:http';
import { Pool } from 'undici';

const PHONE_BASE = 520_000_000;
/** Message i's phone as the request writes it (a domestic mobile number). */
const phoneOf = (i) => `0${PHONE_BASE + i}`;
/** Message i from a report's phone, written domestic or international (972...). */
const indexOfPhone = (phone) => Number(String(phone).slice(-9)) - PHONE_BASE;
const now = () => performance.now();

function quantile(sorted, q) {
  return sorted.length === 0 ? null : Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]);
}

/** Runs one load: options from the parent (gateway, urls, n, connections, rate, token, timeoutMs, settleMs, bulk). */
async function run(o) {
  const sentAt = new Float64Array(o.n).fill(-1);
  const reportedAt = new Float64Array(o.n).fill(-1);
  let reports = 0;
  let repeats = 0;
  let foreign = 0;
  let lastReport = 0;
  let firstRequest = 0;

  const note = (i, delivered) => {
    if (!(i >= 0 && i < o.n) || !delivered) return void foreign++;
    if (reportedAt[i] >= 0) return void repeats++;
    reportedAt[i] = now();
    lastReport = reportedAt[i];
    reports++;
  };
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (o.gateway === 'kannel') {
        const q = new URL(req.url, 'http://x').searchParams;
        note(Number(q.get('i')), q.get('s') === '1');
      } else {
        const f = new URLSearchParams(body);
        note(indexOfPhone(f.get('phone')), f.get('status') === String(o.deliveredStatus));
      }
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' }).end('OK');
    });
  });
  receiver.keepAliveTimeout = 30_000;
  const port = await new Promise((resolve) =>
    receiver.listen(o.receiverPort, '127.0.0.1', () => resolve(receiver.address().port)),
  );
  const receiverUrl = `http://127.0.0.1:${port}`;
  // The parent registers the receiver with Yona before the load starts.
  process.send({ type: 'receiver', url: receiverUrl });
  await new Promise((resolve) => process.once('message', resolve));

  const pools = o.urls.map((u) => new Pool(new URL(u).origin, { connections: o.connections, pipelining: 1 }));
  let accepted = 0;
  let refused = 0;
  let errors = 0;
  const refusals = new Map();
  const request = (i) => {
    const k = i % o.urls.length;
    const url = new URL(o.urls[k]);
    if (o.gateway === 'kannel') {
      const q = new URLSearchParams({
        username: 'bench',
        password: 'bench',
        from: '12345',
        to: `972${PHONE_BASE + i}`,
        text: 'Your code is 123456',
        'dlr-mask': '1',
        'dlr-url': `${receiverUrl}/dlr?i=${i}&s=%d`,
      });
      return { pool: pools[k], options: { method: 'GET', path: `${url.pathname}?${q}` } };
    }
    const body = JSON.stringify({
      sms: {
        user: { username: 'bench' },
        source: 'Yona',
        destinations: { phone: phoneOf(i) },
        message: 'Your code is 123456',
      },
    });
    return {
      pool: pools[k],
      options: {
        method: 'POST',
        path: url.pathname,
        headers: { authorization: `Bearer ${o.token}`, 'content-type': 'application/json' },
        body,
      },
    };
  };
  const judge = (statusCode, text) => {
    if (o.gateway === 'kannel') return statusCode === 202 ? null : `${statusCode} ${text.slice(0, 60)}`;
    const status = JSON.parse(text).status;
    return status === 0 ? null : `status ${status}`;
  };

  firstRequest = now();
  if (o.bulk) {
    // One request naming every phone (Yona's bulk phase).
    const phones = Array.from({ length: o.n }, (_, i) => phoneOf(i));
    const body = JSON.stringify({
      sms: { user: { username: 'bench' }, source: 'Yona', destinations: { phone: phones }, message: 'Big sale' },
    });
    sentAt.fill(firstRequest);
    const res = await pools[0].request({
      method: 'POST',
      path: new URL(o.urls[0]).pathname,
      headers: { authorization: `Bearer ${o.token}`, 'content-type': 'application/json' },
      body,
    });
    const verdict = judge(res.statusCode, await res.body.text());
    if (verdict) throw new Error(`the bulk send was refused: ${verdict}`);
    accepted = o.n;
  } else {
    let next = 0;
    const worker = async () => {
      while (next < o.n) {
        const i = next++;
        // Paced (`rate` messages per second): message i leaves at its own time, whatever is in flight.
        if (o.rate > 0) {
          const wait = firstRequest + (i / o.rate) * 1000 - now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        }
        const { pool, options } = request(i);
        sentAt[i] = now();
        try {
          const res = await pool.request(options);
          const verdict = judge(res.statusCode, await res.body.text());
          if (verdict) {
            refused++;
            refusals.set(verdict, (refusals.get(verdict) ?? 0) + 1);
            sentAt[i] = -1;
          } else accepted++;
        } catch {
          errors++;
          sentAt[i] = -1;
        }
      }
    };
    await Promise.all(Array.from({ length: o.connections * o.urls.length }, worker));
  }
  const lastRequest = now();

  // Every accepted message's report, or the deadline; then a settle period for repeats that come late.
  const deadline = Date.now() + o.timeoutMs;
  while (reports < accepted && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, o.settleMs));

  const latencies = [];
  for (let i = 0; i < o.n; i++) if (sentAt[i] >= 0 && reportedAt[i] >= 0) latencies.push(reportedAt[i] - sentAt[i]);
  latencies.sort((a, b) => a - b);
  const windowS = (lastReport - firstRequest) / 1000;
  await Promise.all(pools.map((p) => p.close()));
  receiver.close();
  return {
    messages: o.n,
    accepted,
    refused,
    refusals: Object.fromEntries(refusals),
    errors,
    reported: reports,
    lost: accepted - reports,
    pushed_twice: repeats,
    foreign_reports: foreign,
    seconds_to_last_report: Math.round(windowS * 1000) / 1000,
    e2e_per_s: windowS > 0 ? Math.round(reports / windowS) : 0,
    accepts_per_s: Math.round(accepted / Math.max((lastRequest - firstRequest) / 1000, 0.001)),
    request_to_report_ms: { p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99) },
    client_cpu_us_per_message: Math.round((process.cpuUsage().user + process.cpuUsage().system) / Math.max(o.n, 1)),
  };
}

process.on('disconnect', () => process.exit(0)); // the bench died: do not linger
process.once('message', async (o) => {
  try {
    process.send({ type: 'result', result: await run(o) }, () => process.exit(0));
  } catch (err) {
    process.send({ type: 'error', message: String(err?.stack ?? err) }, () => process.exit(1));
  }
});
