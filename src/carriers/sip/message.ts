// SIP messages (RFC 3261) as the voice connector needs them: build requests, parse requests and responses
// (compact header names expanded, folded lines joined), and the SDP offer and answer of one G.711 audio stream.
// No npm SIP stack fits a Node UAC placing calls to a trunk (the maintained ones are browser WebSocket stacks or
// need an external SIP server), so this is a small one of our own.
import { randomBytes } from 'node:crypto';

export interface SipMessage {
  /** For a request, its method; for a response, undefined. */
  method?: string;
  uri?: string;
  status?: number;
  reason?: string;
  /** Header values by lower-case full name, in order. */
  headers: Map<string, string[]>;
  body: string;
}

const COMPACT: Record<string, string> = {
  v: 'via',
  f: 'from',
  t: 'to',
  i: 'call-id',
  m: 'contact',
  l: 'content-length',
  c: 'content-type',
  k: 'supported',
  e: 'content-encoding',
};

/** A fresh token for branches, tags and Call-IDs. */
export function sipToken(bytes = 8): string {
  return randomBytes(bytes).toString('hex');
}

/** A Via branch (RFC 3261's magic cookie first). */
export function newBranch(): string {
  return `z9hG4bK${sipToken()}`;
}

/** Parses one SIP message; undefined when it is not one. */
export function parseSip(raw: Buffer | string): SipMessage | undefined {
  const text = typeof raw === 'string' ? raw : raw.toString('utf8');
  const split = text.indexOf('\r\n\r\n');
  const head = split >= 0 ? text.slice(0, split) : text;
  const body = split >= 0 ? text.slice(split + 4) : '';
  const lines = head.split('\r\n').reduce<string[]>((out, line) => {
    if (/^[ \t]/.test(line) && out.length > 0) out[out.length - 1] += ` ${line.trim()}`;
    else out.push(line);
    return out;
  }, []);
  const first = lines.shift() ?? '';
  const message: SipMessage = { headers: new Map(), body };
  const status = /^SIP\/2\.0 (\d{3}) ?(.*)$/.exec(first);
  const request = /^([A-Z]+) (\S+) SIP\/2\.0$/.exec(first);
  if (status) {
    message.status = Number(status[1]);
    message.reason = status[2];
  } else if (request) {
    message.method = request[1];
    message.uri = request[2];
  } else {
    return undefined;
  }
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const raw = line.slice(0, colon).trim().toLowerCase();
    const name = COMPACT[raw] ?? raw;
    const values = message.headers.get(name) ?? [];
    values.push(line.slice(colon + 1).trim());
    message.headers.set(name, values);
  }
  const length = Number(message.headers.get('content-length')?.[0] ?? NaN);
  if (Number.isInteger(length) && length >= 0)
    message.body = Buffer.from(body, 'utf8').subarray(0, length).toString('utf8');
  return message;
}

/**
 * Why a parsed request cannot be handled (RFC 3261 8.2 and 16.3: the mandatory headers Via, From, To, Call-ID
 * and CSeq, a CSeq of a number and the request's own method, a Content-Length the body has), or undefined when
 * it can. Such a request is answered 400 with the reason.
 */
export function requestProblem(message: SipMessage): string | undefined {
  for (const name of ['via', 'from', 'to', 'call-id', 'cseq'])
    if (!message.headers.get(name)?.[0]) return `Missing ${name.replace(/(^|-)\w/g, (c) => c.toUpperCase())} header`;
  const cseq = /^\s*(\d{1,10})\s+([A-Za-z]+)\s*$/.exec(header(message, 'cseq')!);
  if (!cseq) return 'Malformed CSeq header';
  if (cseq[2].toUpperCase() !== message.method) return 'CSeq method does not match the request';
  const length = header(message, 'content-length');
  if (length !== undefined && !/^\s*\d+\s*$/.test(length)) return 'Malformed Content-Length header';
  return undefined;
}

/** The first value of a header, if any. */
export function header(message: SipMessage, name: string): string | undefined {
  return message.headers.get(name.toLowerCase())?.[0];
}

/** The `tag` parameter of a From or To value. */
export function tagOf(value: string | undefined): string | undefined {
  return value ? /;\s*tag=([^;>\s]+)/i.exec(value)?.[1] : undefined;
}

/** The URI inside a Contact (or From/To) value: `<sip:x@h:p;transport=udp>` or a bare URI. */
export function uriOf(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const angle = /<([^>]+)>/.exec(value);
  return angle ? angle[1] : value.split(';')[0].trim();
}

/** Formats a request; Content-Length is added from the body. */
export function formatRequest(method: string, uri: string, headers: Array<[string, string]>, body = ''): string {
  const lines = [
    `${method} ${uri} SIP/2.0`,
    ...headers.map(([n, v]) => `${n}: ${v}`),
    `Content-Length: ${Buffer.byteLength(body)}`,
  ];
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/** Formats a response to a request (its Via, From, To, Call-ID and CSeq copied; a To tag added when given). */
export function formatResponse(
  request: SipMessage,
  status: number,
  reason: string,
  extra: Array<[string, string]> = [],
  body = '',
  toTag?: string,
): string {
  const copied: Array<[string, string]> = [];
  for (const v of request.headers.get('via') ?? []) copied.push(['Via', v]);
  const to = header(request, 'to') ?? '';
  copied.push(['From', header(request, 'from') ?? ''], ['To', toTag && !tagOf(to) ? `${to};tag=${toTag}` : to]);
  copied.push(['Call-ID', header(request, 'call-id') ?? ''], ['CSeq', header(request, 'cseq') ?? '']);
  const lines = [
    `SIP/2.0 ${status} ${reason}`,
    ...[...copied, ...extra].map(([n, v]) => `${n}: ${v}`),
    `Content-Length: ${Buffer.byteLength(body)}`,
  ];
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/** The SDP offer of one audio stream from `ip:port`: PCMA first (the law of Israeli and European trunks), then PCMU. */
export function sdpOffer(ip: string, port: number, sessionId: number): string {
  return [
    'v=0',
    `o=yona ${sessionId} ${sessionId} IN IP4 ${ip}`,
    's=yona',
    `c=IN IP4 ${ip}`,
    't=0 0',
    `m=audio ${port} RTP/AVP 8 0`,
    'a=rtpmap:8 PCMA/8000',
    'a=rtpmap:0 PCMU/8000',
    'a=ptime:20',
    'a=sendrecv',
    '',
  ].join('\r\n');
}

/** Where an SDP (answer or offer) wants audio and in which payload types, in its order of preference. */
export function parseSdp(body: string): { ip: string; port: number; payloadTypes: number[] } | undefined {
  const lines = body.split(/\r?\n/);
  let ip: string | undefined;
  let media: { port: number; payloadTypes: number[]; ip?: string } | undefined;
  for (const line of lines) {
    const c = /^c=IN IP4 (\S+)/.exec(line);
    if (c) {
      if (media) media.ip = c[1];
      else ip = c[1];
    }
    const m = /^m=audio (\d+) RTP\/AVP ([\d ]+)/.exec(line);
    if (m && !media) media = { port: Number(m[1]), payloadTypes: m[2].trim().split(/\s+/).map(Number) };
  }
  const at = media?.ip ?? ip;
  return media && at ? { ip: at, port: media.port, payloadTypes: media.payloadTypes } : undefined;
}
