// Console request plumbing: cookies, form bodies, security headers and replies.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Html, markupOf } from './html.ts';

export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i <= 0) continue;
    const name = part.slice(0, i).trim();
    const value = part.slice(i + 1).trim();
    try {
      if (!out.has(name)) out.set(name, decodeURIComponent(value));
    } catch {
      // a malformed value is ignored, as if absent
    }
  }
  return out;
}

export interface CookieOptions {
  maxAgeSeconds?: number;
  /** Readable by scripts (the language preference only). */
  script?: boolean;
}

/** A Secure, SameSite=Lax, HttpOnly cookie for the whole site (`__Host-` names need Path=/ and Secure). */
export function setCookie(reply: FastifyReply, name: string, value: string, o: CookieOptions = {}): void {
  const parts = [`${name}=${encodeURIComponent(value)}`, 'Path=/', 'Secure', 'SameSite=Lax'];
  if (!o.script) parts.push('HttpOnly');
  if (o.maxAgeSeconds !== undefined) parts.push(`Max-Age=${o.maxAgeSeconds}`);
  const prev = reply.getHeader('set-cookie');
  const list = prev === undefined ? [] : Array.isArray(prev) ? prev.map(String) : [String(prev)];
  reply.header('set-cookie', [...list, parts.join('; ')]);
}

export function clearCookie(reply: FastifyReply, name: string): void {
  setCookie(reply, name, '', { maxAgeSeconds: 0 });
}

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  'strict-transport-security': 'max-age=31536000',
};

export function sendHtml(reply: FastifyReply, page: Html, code = 200): FastifyReply {
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) reply.header(k, v);
  return reply.code(code).header('content-type', 'text/html; charset=utf-8').send(markupOf(page));
}

/** 303 to a console path (after a form: the browser GETs it). */
export function redirect(reply: FastifyReply, path: string): FastifyReply {
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) reply.header(k, v);
  return reply.code(303).header('location', path).send();
}

/** A `back` parameter only ever names a console page (never another site). */
export function safeBack(back: unknown): string {
  return typeof back === 'string' && /^\/console(\/[A-Za-z0-9_\-/]*)?$/.test(back) ? back : '/console';
}

/** Whether the request reached the HTTPS listener (or a trusted proxy says it did). */
export function overHttps(request: FastifyRequest): boolean {
  return (request.raw.socket as { encrypted?: boolean }).encrypted === true || request.protocol === 'https';
}
