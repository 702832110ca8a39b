// HTTP control channel on 127.0.0.1 so another process (`yona sim mo|messages`) can drive a running simulator.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { ReceivedMessage } from './log.ts';
import type { ReceivedCall } from './uas.ts';

const MAX_BODY = 64 * 1024;

/** What the control channel needs from the simulator (smsc.ts's SmscSimulator, which starts the channel). */
export interface SimulatorControl {
  sendInbound(mo: { from: string; to: string; text: string }): Promise<{ parts: number; delivered: boolean }>;
  messages(filter: { to?: string }): ReceivedMessage[];
  calls(filter: { to?: string }): ReceivedCall[];
  /** The counters, answered as JSON. */
  stats(): object;
  throttle(on: boolean): void;
  failNext(n: number, commandStatus: number): void;
  disconnectAll(): void;
  setReceiptDelay(ms: number): void;
}

/**
 * Starts the control server. Endpoints (JSON in and out):
 * POST /mo {from,to,text} -> {parts, delivered}; GET /messages?to= -> {messages}; GET /calls?to= -> {calls}; GET /stats;
 * POST /throttle {on}; POST /fail-next {n, status}; POST /disconnect; POST /receipt-delay {ms}.
 */
export async function startControlServer(sim: SimulatorControl, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    route(sim, req, res).catch((err: Error) => send(res, 500, { error: err.message }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return server;
}

async function route(sim: SimulatorControl, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const key = `${req.method} ${url.pathname}`;
  if (key === 'GET /messages')
    return send(res, 200, { messages: sim.messages({ to: url.searchParams.get('to') ?? undefined }) });
  if (key === 'GET /calls')
    return send(res, 200, { calls: sim.calls({ to: url.searchParams.get('to') ?? undefined }) });
  if (key === 'GET /stats') return send(res, 200, sim.stats());
  if (req.method !== 'POST') return send(res, 404, { error: 'not found' });
  let body: Record<string, unknown>;
  try {
    body = await readJson(req);
  } catch (err) {
    return send(res, 400, { error: (err as Error).message });
  }
  switch (url.pathname) {
    case '/mo': {
      const { from, to, text } = body;
      if (typeof from !== 'string' || typeof to !== 'string' || typeof text !== 'string' || !from || !to) {
        return send(res, 400, { error: 'from, to and text are required strings' });
      }
      return send(res, 200, await sim.sendInbound({ from, to, text }));
    }
    case '/throttle':
      sim.throttle(Boolean(body.on));
      return send(res, 200, { ok: true });
    case '/fail-next':
      sim.failNext(Number(body.n ?? 1), Number(body.status ?? 0x08));
      return send(res, 200, { ok: true });
    case '/disconnect':
      sim.disconnectAll();
      return send(res, 200, { ok: true });
    case '/receipt-delay':
      sim.setReceiptDelay(Number(body.ms ?? 0));
      return send(res, 200, { ok: true });
    default:
      return send(res, 404, { error: 'not found' });
  }
}

/** A request's JSON object body (empty: {}); throws past 64 KiB or for anything but an object. */
export async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return {};
  const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('body must be a JSON object');
  return value as Record<string, unknown>;
}

/** Answers `body` as JSON with `status`. */
export function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Client for the control channel, for the CLI: `new SimulatorClient('http://127.0.0.1:PORT')`. */
export class SimulatorClient {
  constructor(private readonly baseUrl: string) {}

  /** Sends an MO message through the simulator to the bound Yona carrier. */
  async mo(input: { from: string; to: string; text: string }): Promise<{ parts: number; delivered: boolean }> {
    return this.call('POST', '/mo', input) as Promise<{ parts: number; delivered: boolean }>;
  }

  /** Messages the simulator received, optionally to one destination. */
  async messages(to?: string): Promise<ReceivedMessage[]> {
    const query = to ? `?to=${encodeURIComponent(to)}` : '';
    const body = (await this.call('GET', `/messages${query}`)) as { messages: ReceivedMessage[] };
    return body.messages;
  }

  /** Calls the simulator's SIP side took, optionally to one number. */
  async calls(to?: string): Promise<ReceivedCall[]> {
    const query = to ? `?to=${encodeURIComponent(to)}` : '';
    const body = (await this.call('GET', `/calls${query}`)) as { calls: ReceivedCall[] };
    return body.calls;
  }

  private async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await fetch(new URL(path, this.baseUrl), {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as { error?: string };
    if (!res.ok) throw new Error(`simulator control ${method} ${path}: ${res.status} ${json.error ?? ''}`.trim());
    return json;
  }
}
