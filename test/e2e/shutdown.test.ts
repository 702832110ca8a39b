// Graceful SIGTERM with real `yona serve` processes: requests in flight on either listener (caught mid-upload,
// the rest of the body sent once the listeners closed) get their full replies with `Connection: close`, idle
// and just-answered keep-alive HTTPS connections do not hold the process, and it exits 0 long before serve's
// 15 s forced exit (code 1).
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

const bin = join(import.meta.dirname, '../../bin/yona.js');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Reply {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A POST to /api whose body goes out in two halves: the second only when `finish` is called. */
function twoPartPost(client: typeof http | typeof https, options: http.RequestOptions, body: string, path = '/api') {
  const bytes = Buffer.from(body);
  const half = Math.floor(bytes.length / 2);
  const req = client.request({
    ...options,
    method: 'POST',
    path,
    headers: { ...options.headers, 'content-length': bytes.length },
  });
  const reply = new Promise<Reply>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ headers: res.headers, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  req.write(bytes.subarray(0, half));
  return { reply, finish: () => req.end(bytes.subarray(half)) };
}

/** Resolves once nothing listens on the port any more. */
async function untilRefused(port: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(false)));
      socket.once('error', () => resolve(true));
    });
    if (refused) return;
    await sleep(25);
  }
  throw new Error(`port ${port} still accepts connections`);
}

interface Serve {
  process: ChildProcess;
  httpPort: number;
  httpsPort: number;
  token: string;
  logs(): string;
  exited: Promise<number | null>;
}

/** Starts `yona serve` on a scratch embedded store with request logging, and an account with 9 credits. */
async function startServe(dataDir: string): Promise<Serve> {
  const httpsPort = 20000 + Math.floor(Math.random() * 12000); // below the ephemeral ports (32768 and up)
  const httpPort = httpsPort + 1;
  const env = {
    ...process.env,
    YONA_DATA_DIR: dataDir,
    YONA_HTTPS_PORT: String(httpsPort),
    YONA_HTTP_PORT: String(httpPort),
    YONA_HTTPS_HOST: '127.0.0.1',
    DATABASE_URL: '',
    YONA_LOG_REQUESTS: '1',
  };
  const cli = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { env, encoding: 'utf8' });
  const child = spawn(process.execPath, [bin, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let logs = '';
  child.stdout!.on('data', (d) => (logs += d));
  child.stderr!.on('data', (d) => (logs += d));
  for (let i = 0; i < 400 && !logs.includes('yona is serving'); i++) await sleep(100);
  assert.match(logs, /yona is serving/);
  assert.equal(cli('admin', 'create-account', 'draining', '--password', 'correct-horse', '--credits', '9').status, 0);
  const minted = cli('admin', 'create-token', 'draining');
  assert.equal(minted.status, 0, minted.stderr);
  return {
    process: child,
    httpPort,
    httpsPort,
    token: minted.stdout.trim().split('\n').at(-1)!,
    logs: () => logs,
    exited,
  };
}

describe('graceful shutdown (real process)', () => {
  const dirs: string[] = [];
  const running: ChildProcess[] = [];
  const body = JSON.stringify({ balance: { user: { username: 'draining' } } });
  const insecure = () => new https.Agent({ keepAlive: true, rejectUnauthorized: false });

  async function serve(): Promise<Serve> {
    const dir = mkdtempSync(join(tmpdir(), 'yona-shutdown-'));
    dirs.push(dir);
    const s = await startServe(dir);
    running.push(s.process);
    return s;
  }

  /** Opens a keep-alive HTTPS connection with one answered request; it stays open in the agent. */
  async function keepAliveHttps(s: Serve, agent: https.Agent): Promise<void> {
    const headers = { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' };
    const warm = twoPartPost(https, { host: '127.0.0.1', port: s.httpsPort, headers, agent }, body);
    warm.finish();
    const reply = await warm.reply;
    assert.equal(JSON.parse(reply.body).status, 0);
    assert.equal(reply.headers.connection, 'keep-alive');
  }

  /** Starts a request whose headers reached the server and whose body is half sent. */
  async function inFlight(s: Serve, over: 'http' | 'https', agent: http.Agent) {
    const headers = { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' };
    const port = over === 'https' ? s.httpsPort : s.httpPort;
    // The query marks the request in the request log, which shows when its headers reached the server.
    const marker = `in-flight=${over}"`;
    const req = twoPartPost(
      over === 'https' ? https : http,
      { host: '127.0.0.1', port, headers, agent },
      body,
      `/api?${marker.slice(0, -1)}`,
    );
    for (let i = 0; i < 250 && !s.logs().includes(marker); i++) await sleep(20);
    assert.ok(s.logs().includes(marker), `the ${over} request reached the server`);
    return req;
  }

  /** SIGTERM, then waits until the listeners are closed (shutdown under way). */
  async function terminate(s: Serve): Promise<number> {
    const started = Date.now();
    s.process.kill('SIGTERM');
    await untilRefused(s.httpPort);
    return started;
  }

  async function assertPromptCleanExit(s: Serve, started: number): Promise<void> {
    assert.equal(await s.exited, 0);
    const took = Date.now() - started;
    assert.ok(took < 5000, `exited after ${took} ms`);
    assert.match(s.logs(), /shutting down/);
  }

  after(() => {
    for (const p of running) p.kill('SIGKILL');
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('answers a request in flight on the plain HTTP listener while an idle keep-alive HTTPS connection is open', async () => {
    const s = await serve();
    const idle = insecure();
    await keepAliveHttps(s, idle);
    const overHttp = await inFlight(s, 'http', new http.Agent({ keepAlive: true }));
    const started = await terminate(s);
    overHttp.finish();
    const reply = await overHttp.reply;
    assert.equal(JSON.parse(reply.body).status, 0, reply.body);
    assert.equal(JSON.parse(reply.body).balance, '9');
    assert.equal(reply.headers.connection, 'close');
    await assertPromptCleanExit(s, started);
    idle.destroy();
  });

  it('closes a keep-alive HTTPS connection that was busy at SIGTERM once it answered, and exits promptly', async () => {
    const s = await serve();
    const idle = insecure();
    const busy = insecure();
    await keepAliveHttps(s, idle);
    await keepAliveHttps(s, busy);
    const overHttps = await inFlight(s, 'https', busy);
    const overHttp = await inFlight(s, 'http', new http.Agent({ keepAlive: true }));
    const started = await terminate(s);
    overHttps.finish();
    overHttp.finish();
    const replies = { https: await overHttps.reply, http: await overHttp.reply };
    for (const reply of Object.values(replies)) assert.equal(JSON.parse(reply.body).status, 0, reply.body);
    await assertPromptCleanExit(s, started);
    for (const [name, reply] of Object.entries(replies)) assert.equal(reply.headers.connection, 'close', name);
    idle.destroy();
    busy.destroy();
  });
});
