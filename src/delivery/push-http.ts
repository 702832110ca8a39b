// The pusher's HTTP side: an undici Agent (connect and request timeouts, connections per origin) whose DNS
// lookup keeps only public addresses, so a name cannot point a push back inside; and one form POST.
import dns from 'node:dns';
import { EventEmitter } from 'node:events';
import type { LookupFunction } from 'node:net';
import { Agent } from 'undici';
import type { PushSettings } from '../domain/push-settings.ts';
import { signPush } from '../domain/push-sign.ts';
import { checkPushUrl, nonPublicReason } from '../domain/push-url.ts';

/** A push URL split for the dispatcher, or why it may not be called. */
export interface PreparedTarget {
  origin: string;
  path: string;
  /** Basic credentials from `https://user:pass@host/` (sent as a header, never in the URL). */
  authorization?: string;
  /** Set when the URL's host is a non-public literal (registered while private URLs were allowed). */
  blocked?: string;
}

/** What a POST got: the HTTP status, or an error when none came. */
export interface PostOutcome {
  status: number | null;
  error: string | null;
}

/** Wraps a dns.lookup-like resolver so only public addresses come back; all-private names fail with EPUSHNOTPUBLIC. */
export function publicOnlyLookup(resolve: typeof dns.lookup = dns.lookup): LookupFunction {
  return ((hostname: string, options: dns.LookupOptions, callback: (...args: any[]) => void) => {
    resolve(
      hostname,
      { ...options, all: true },
      (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => {
        if (err) return callback(err);
        const allowed = addresses.filter((a) => nonPublicReason(a.address) === null);
        if (allowed.length === 0) {
          const why = addresses.length ? nonPublicReason(addresses[0].address) : 'no address';
          const refused = Object.assign(
            new Error(`${hostname} resolves to a non-public address (${why}); push refused`),
            { code: 'EPUSHNOTPUBLIC' },
          );
          return callback(refused);
        }
        if (options.all) callback(null, allowed);
        else callback(null, allowed[0].address, allowed[0].family);
      },
    );
  }) as LookupFunction;
}

/** The Agent all pushes go through: per-origin connection cap, timeouts, and the public-only lookup. */
export function createPushAgent(settings: PushSettings, resolve?: typeof dns.lookup): Agent {
  return new Agent({
    connections: settings.concurrency,
    pipelining: 1,
    keepAliveTimeout: 10_000,
    headersTimeout: settings.requestTimeoutMs,
    bodyTimeout: settings.requestTimeoutMs,
    connect: {
      timeout: settings.connectTimeoutMs,
      ...(settings.allowPrivate
        ? resolve
          ? { lookup: resolve as unknown as LookupFunction }
          : {}
        : { lookup: publicOnlyLookup(resolve) }),
    },
  });
}

/** Splits a stored URL for sending; re-checks literal addresses unless private URLs are allowed. */
export function prepareTarget(url: string, allowPrivate: boolean): PreparedTarget {
  const check = checkPushUrl(url, { allowPrivate });
  if (!check.ok) return { origin: 'http://invalid', path: '/', blocked: `URL refused: ${check.reason}` };
  const u = check.url;
  const target: PreparedTarget = { origin: u.origin, path: `${u.pathname}${u.search}` };
  if (u.username || u.password) {
    const user = decodeURIComponent(u.username);
    const pass = decodeURIComponent(u.password);
    target.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
  }
  return target;
}

/**
 * The headers of one push: its exact content type (the form's, or JSON for the WhatsApp feeds), the event id, and
 * the signature when the account has a secret.
 */
export function pushHeaders(
  eventId: number,
  body: string,
  secret: string | null,
  contentType = 'application/x-www-form-urlencoded',
): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Type': contentType,
    'User-Agent': 'Yona-Push/1.0',
    'X-Yona-Event-Id': String(eventId),
  };
  if (secret) {
    const timestamp = Math.floor(Date.now() / 1000);
    headers['X-Yona-Timestamp'] = String(timestamp);
    headers['X-Yona-Signature'] = signPush(secret, timestamp, body);
  }
  return headers;
}

function describeError(err: unknown): string {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e?.code ?? e?.cause?.code;
  const message = e?.message ?? String(err);
  const text = code && !message.includes(code) ? `${code}: ${message}` : message;
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}

/**
 * POSTs one form body; never throws. Only the status is read; the answer's body is discarded. The whole
 * request (connect, send, answer) has `timeoutMs`; `inFlight` holds an abort handle per request so a
 * shutdown can cut them all (a plain emitter and timer: AbortSignal.timeout costs more than the push).
 */
export async function postForm(
  agent: Agent,
  target: PreparedTarget,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  inFlight: Set<EventEmitter>,
): Promise<PostOutcome> {
  if (target.blocked) return { status: null, error: target.blocked };
  const signal = new EventEmitter();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    signal.emit('abort');
  }, timeoutMs);
  inFlight.add(signal);
  try {
    const res = await agent.request({
      origin: target.origin,
      path: target.path,
      method: 'POST',
      body,
      signal,
      headers: target.authorization ? { ...headers, Authorization: target.authorization } : headers,
    });
    await res.body.dump({ limit: 64 * 1024 }).catch(() => {});
    // dump() ends quietly when the timeout cuts the body: an answer that never completed is no delivery.
    if (timedOut)
      return {
        status: null,
        error: `timeout: HTTP ${res.statusCode}, but the answer did not complete within ${timeoutMs} ms`,
      };
    return { status: res.statusCode, error: res.statusCode === 200 ? null : `HTTP ${res.statusCode}` };
  } catch (err) {
    return {
      status: null,
      error: timedOut ? `timeout: no complete answer within ${timeoutMs} ms` : describeError(err),
    };
  } finally {
    clearTimeout(timer);
    inFlight.delete(signal);
  }
}
