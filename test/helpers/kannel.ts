// Kannel (Debian's `kannel`: bearerbox + smsbox) as an independent ESME for the interop tests: an `smsc = smpp`
// group bound to an SMPP server under test (one transceiver bind, or a transmitter and a receiver), messages sent
// with its sendsms interface, and its dlr-url callbacks collected on a loopback HTTP server. Every port is chosen
// free at start, so several can run at once. The tests skip with a notice without Kannel, and fail instead when
// REQUIRE_KANNEL=1 (CI).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, get, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stopChild } from './stop-child.ts';

const BEARERBOX = '/usr/sbin/bearerbox';
const SMSBOX = '/usr/sbin/smsbox';
const PASSWORD = 'kannel';

/** Whether bearerbox is on the PATH; throws when it is not and REQUIRE_KANNEL=1. */
export function kannelAvailable(): boolean {
  if (spawnSync('sh', ['-c', 'command -v bearerbox || test -x /usr/sbin/bearerbox']).status === 0) return true;
  if (process.env.REQUIRE_KANNEL === '1')
    throw new Error('REQUIRE_KANNEL=1 but Kannel is not installed (apt-get install kannel)');
  console.log('# NOTICE: Kannel not installed; Kannel interop tests skipped');
  return false;
}

/** Kannel's delivery report types (the `%d` of a dlr-url). */
export const DLR = { DELIVERED: 1, UNDELIVERED: 2, BUFFERED: 4, SMSC_ACCEPTED: 8, SMSC_REJECTED: 16 } as const;

export interface KannelBindOptions {
  /** The SMPP server Kannel binds to. */
  port: number;
  host?: string;
  systemId: string;
  password: string;
  /** One `bind_transceiver` (default), or a `bind_transmitter` and a `bind_receiver` on the same port. */
  binds?: 'transceiver' | 'transmitter-receiver';
  /** Kannel's `max-pending-submits` (its window); 10 by default. */
  window?: number;
  /** bearerbox's and smsbox's log level (0 debug .. 4 panic); 0 by default, so a refusal's reason is in the log. */
  logLevel?: number;
}

/** One dlr-url callback: the tag given at send, Kannel's report type and its SMSC reply text (`%A`). */
export interface KannelDlr {
  tag: string;
  type: number;
  reply: string;
}

export interface SendOptions {
  from: string;
  to: string;
  text: string;
  /** 0: Kannel's default (GSM-7 on the wire); 2: UCS-2. */
  coding?: 0 | 2;
  /** The callbacks asked for (Kannel's dlr-mask); delivered, undelivered and SMSC reject by default. */
  dlrMask?: number;
}

export interface KannelEsme {
  /** The sendsms GET for a message (no dlr-url), for a load generator to repeat. */
  sendsmsUrl(options: SendOptions): string;
  /** sendsms: resolves with its HTTP status and body and the tag its dlr-url callbacks carry. */
  send(options: SendOptions): Promise<{ status: number; body: string; tag: string }>;
  /** Every dlr-url callback so far. */
  dlrs(): KannelDlr[];
  /** Waits for a callback for `tag` (of `type`, when given). */
  waitForDlr(tag: string, type?: number, timeoutMs?: number): Promise<KannelDlr>;
  /** bearerbox's status page (text). */
  status(): Promise<string>;
  /** Waits until the SMPP connection is online (every bind up). */
  waitOnline(timeoutMs?: number): Promise<void>;
  /** bearerbox's log so far. */
  log(): string;
  stop(): Promise<void>;
}

/**
 * A GET on a fresh connection: Kannel's HTTP servers close connections a keep-alive client would reuse.
 * Resolves with the status and body; rejects when nothing answers.
 */
function httpGet(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    // A box that accepted the connection and never answers fails the request instead of hanging its caller.
    const req = get(url, { agent: false, timeout: 5000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} within 5 s`)));
    req.on('error', reject);
  });
}

/** A free loopback TCP port (taken, then released for the caller). */
export async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The configuration file: core, one smpp SMSC, smsbox, a sendsms user allowed up to 10 parts. */
export function kannelConfig(
  dir: string,
  ports: { admin: number; smsbox: number; sendsms: number },
  bind: KannelBindOptions,
): string {
  const logLevel = bind.logLevel ?? 0;
  // Kannel 1.4 takes a transmitter and a receiver as two smsc groups of one smsc-id (`port` for the one,
  // `receive-port` for the other), a transceiver as one group.
  const smsc = (portLine: string, mode: string) => `group = smsc
smsc = smpp
smsc-id = yona
host = ${bind.host ?? '127.0.0.1'}
${portLine}
smsc-username = "${bind.systemId}"
smsc-password = "${bind.password}"
system-type = ""
interface-version = 34
max-pending-submits = ${bind.window ?? 10}
enquire-link-interval = 30
reconnect-delay = 2
wait-ack = 60
wait-ack-expire = 0x01
${mode}
`;
  const smscGroups =
    (bind.binds ?? 'transceiver') === 'transceiver'
      ? smsc(`port = ${bind.port}`, 'transceiver-mode = true')
      : `${smsc(`port = ${bind.port}`, 'transceiver-mode = false')}\n${smsc(`receive-port = ${bind.port}`, 'transceiver-mode = false')}`;
  return `group = core
admin-port = ${ports.admin}
admin-interface = 127.0.0.1
admin-password = ${PASSWORD}
status-password = ${PASSWORD}
admin-allow-ip = "127.0.0.1"
smsbox-port = ${ports.smsbox}
smsbox-interface = 127.0.0.1
box-allow-ip = "127.0.0.1"
log-file = "${dir}/bearerbox.log"
log-level = ${logLevel}
dlr-storage = internal

${smscGroups}
group = smsbox
bearerbox-host = 127.0.0.1
bearerbox-port = ${ports.smsbox}
sendsms-port = ${ports.sendsms}
sendsms-interface = 127.0.0.1
log-file = "${dir}/smsbox.log"
log-level = ${logLevel}

group = sendsms-user
username = yona
password = ${PASSWORD}
max-messages = 10
concatenation = true
user-allow-ip = "127.0.0.1"

group = sms-service
keyword = default
text = "No service specified"
catch-all = true
`;
}

/** SIGTERM, SIGKILL after 10 s; resolves once the process is gone. */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await stopChild(child, new Promise<void>((resolve) => child.once('exit', () => resolve())));
}

function readLog(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** A box that exited while starting (its ports, free when chosen, may have been taken since): started again. */
class BoxExited extends Error {}

/** How long a box may take to answer on a loaded machine. */
const BOX_START_MS = 45_000;

/**
 * Starts the dlr receiver, bearerbox and smsbox; resolves once sendsms answers (the SMSC may still be binding).
 * A box that exits while starting is tried again on other ports (three times in all); whatever a failed start
 * spawned is stopped before it throws.
 */
export async function startKannelEsme(bind: KannelBindOptions): Promise<KannelEsme> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startKannelOnce(bind);
    } catch (err) {
      if (!(err instanceof BoxExited) || attempt === 3) throw err;
    }
  }
}

async function startKannelOnce(bind: KannelBindOptions): Promise<KannelEsme> {
  const dir = mkdtempSync(join(tmpdir(), 'yona-kannel-'));
  const received: KannelDlr[] = [];
  const dlrServer: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    received.push({
      tag: url.searchParams.get('tag') ?? '',
      type: Number(url.searchParams.get('type')),
      reply: url.searchParams.get('reply') ?? '',
    });
    res.end('ok');
  });
  await new Promise<void>((resolve) => dlrServer.listen(0, '127.0.0.1', resolve));
  const dlrPort = (dlrServer.address() as { port: number }).port;
  const ports = { admin: await freePort(), smsbox: await freePort(), sendsms: await freePort() };
  const conf = join(dir, 'kannel.conf');
  writeFileSync(conf, kannelConfig(dir, ports, bind));
  const started: ChildProcess[] = [];
  const stop = async () => {
    for (const child of [...started].reverse()) await stopProcess(child);
    await new Promise<void>((resolve) => dlrServer.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  };
  const statusUrl = `http://127.0.0.1:${ports.admin}/status.txt?password=${PASSWORD}`;
  const status = async () => {
    try {
      return (await httpGet(statusUrl)).body;
    } catch {
      return '';
    }
  };
  let sent = 0;
  const sendsmsQuery = (options: SendOptions) => {
    const query = new URLSearchParams({
      username: 'yona',
      password: PASSWORD,
      from: options.from,
      to: options.to,
      text: options.text,
      charset: 'UTF-8',
    });
    if (options.coding) query.set('coding', String(options.coding));
    return query;
  };
  const esme: KannelEsme = {
    sendsmsUrl: (options) => `http://127.0.0.1:${ports.sendsms}/cgi-bin/sendsms?${sendsmsQuery(options)}`,
    async send(options) {
      const tag = `k${++sent}`;
      const dlrUrl = `http://127.0.0.1:${dlrPort}/dlr?tag=${tag}&type=%d&reply=%A`;
      const query = sendsmsQuery(options);
      query.set('dlr-mask', String(options.dlrMask ?? DLR.DELIVERED | DLR.UNDELIVERED | DLR.SMSC_REJECTED));
      query.set('dlr-url', dlrUrl);
      const res = await httpGet(`http://127.0.0.1:${ports.sendsms}/cgi-bin/sendsms?${query}`);
      return { ...res, tag };
    },
    dlrs: () => [...received],
    async waitForDlr(tag, type, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const hit = received.find((d) => d.tag === tag && (type === undefined || d.type === type));
        if (hit) return hit;
        if (Date.now() > deadline)
          throw new Error(
            `no Kannel dlr ${type ?? ''} for ${tag} within ${timeoutMs} ms; got ${JSON.stringify(received)}\n${esme.log().slice(-4000)}`,
          );
        await sleep(100);
      }
    },
    status,
    async waitOnline(timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      // status.txt lists each smsc group as `yona[yona] SMPP:host:port/receive-port:user: (online ...)` once up.
      const online = (text: string) => {
        const groups = text.split('\n').filter((line) => line.includes('SMPP:'));
        return groups.length > 0 && groups.every((line) => line.includes('(online '));
      };
      while (!online(await status())) {
        if (Date.now() > deadline)
          throw new Error(
            `Kannel's SMSC did not come online within ${timeoutMs} ms\n${await status()}\n${esme.log().slice(-4000)}`,
          );
        await sleep(200);
      }
    },
    log: () => readLog(join(dir, 'bearerbox.log')),
    stop,
  };
  try {
    started.push(spawn(BEARERBOX, [conf], { stdio: 'ignore' }));
    const adminDeadline = Date.now() + BOX_START_MS;
    while ((await status()) === '') {
      if (started[0].exitCode !== null) throw new BoxExited(`bearerbox exited\n${esme.log().slice(-4000)}`);
      if (Date.now() > adminDeadline) throw new Error(`bearerbox did not start\n${esme.log().slice(-4000)}`);
      await sleep(100);
    }
    started.push(spawn(SMSBOX, [conf], { stdio: 'ignore' }));
    const sendsmsDeadline = Date.now() + BOX_START_MS;
    for (;;) {
      const up = await httpGet(`http://127.0.0.1:${ports.sendsms}/cgi-bin/sendsms`).then(
        () => true,
        () => false,
      );
      if (up) break;
      const smsboxLog = () => readLog(join(dir, 'smsbox.log')).slice(-4000);
      if (started[1].exitCode !== null) throw new BoxExited(`smsbox exited\n${smsboxLog()}`);
      if (Date.now() > sendsmsDeadline) throw new Error(`smsbox did not start\n${smsboxLog()}`);
      await sleep(100);
    }
    return esme;
  } catch (err) {
    await stop();
    throw err;
  }
}
