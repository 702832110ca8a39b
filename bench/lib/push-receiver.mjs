// Child process side of bench/push.ts: a loopback HTTP receiver answering 200 to every push and noting the
// first arrival time of each X-Yona-Event-Id (repeats counted). Talks to the parent over IPC.
import { createServer } from 'node:http';

const firstArrival = new Map();
let requests = 0;
let badContentType = 0;

const server = createServer((req, res) => {
  let length = 0;
  req.on('data', (c) => (length += c.length));
  req.on('end', () => {
    requests++;
    const id = req.headers['x-yona-event-id'];
    if (req.headers['content-type'] !== 'application/x-www-form-urlencoded' || !req.headers['content-length'])
      badContentType++;
    if (!firstArrival.has(id)) firstArrival.set(id, Date.now());
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' }).end('OK');
  });
});
server.keepAliveTimeout = 30_000;

process.on('disconnect', () => process.exit(0)); // the bench died: do not linger

server.listen(0, '127.0.0.1', () => process.send({ type: 'listening', port: server.address().port }));

process.on('message', (m) => {
  if (m.type === 'count') process.send({ type: 'count', distinct: firstArrival.size, requests });
  if (m.type === 'report') {
    process.send({ type: 'report', arrivals: [...firstArrival], requests, badContentType }, () => {
      firstArrival.clear();
      requests = 0;
    });
  }
  if (m.type === 'exit') server.close(() => process.exit(0));
});
