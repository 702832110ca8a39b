// A real HTTP receiver on 127.0.0.1 for push tests: records every request (headers, raw body, parsed
// form fields, arrival time) and answers what the test's `respond` says; can go down and come back on its port.
// Also a silent TCP listener (accepts, never says a word) for connect-timeout tests.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';

export interface ReceivedPush {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Header names as sent, in order (rawHeaders pairs folded to names). */
  headerNames: string[];
  body: string;
  fields: Record<string, string>;
  at: number;
}

/** Decides the HTTP status of the n-th request (0-based); may wait (a slow receiver). */
export type Responder = (push: ReceivedPush, n: number) => number | Promise<number>;

export interface PushReceiver {
  url: string;
  port: number;
  received: ReceivedPush[];
  respond: Responder;
  /** Stops listening (connections refused) and drops open connections; `up` listens again on the same port. */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a receiver answering 200 unless `respond` says otherwise. */
export async function startPushReceiver(respond: Responder = () => 200): Promise<PushReceiver> {
  const sockets = new Set<Socket>();
  let count = 0;
  const receiver: PushReceiver = {
    url: '',
    port: 0,
    received: [],
    respond,
    down: () => stop(),
    up: () => listen(receiver.port),
    close: () => stop(),
  };
  let server: Server | undefined;
  const handler = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const push: ReceivedPush = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        headerNames: req.rawHeaders.filter((_, i) => i % 2 === 0),
        body,
        fields: Object.fromEntries(new URLSearchParams(body)),
        at: Date.now(),
      };
      receiver.received.push(push);
      const status = await receiver.respond(push, count++);
      if (!res.destroyed) res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'OK' : 'NO');
    });
  };
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server = createServer(handler);
      server.on('connection', (s) => {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        receiver.port = (server!.address() as AddressInfo).port;
        receiver.url = `http://127.0.0.1:${receiver.port}/hook`;
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!server) return resolve();
      const s = server;
      server = undefined;
      for (const socket of sockets) socket.destroy();
      s.close(() => resolve());
    });
  await listen(0);
  return receiver;
}

/** A TCP listener on 127.0.0.1 that accepts connections and never writes a byte (a TLS handshake to it never completes). */
export interface SilentServer {
  port: number;
  /** Connections accepted so far. */
  connections: number;
  /** Bytes received so far (a TLS client's ClientHello lands here). */
  bytesReceived: number;
  close(): Promise<void>;
}

export async function startSilentServer(): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    silent.connections++;
    sockets.add(socket);
    socket.on('data', (d) => (silent.bytesReceived += d.length));
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  const silent: SilentServer = {
    port: 0,
    connections: 0,
    bytesReceived: 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  silent.port = (server.address() as AddressInfo).port;
  return silent;
}

/** Polls `condition` until true; fails with `what` after the deadline (no fixed sleeps in tests). */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
