// Verifying a signed push (docs/push.md): X-Yona-Timestamp (unix seconds) and X-Yona-Signature
// `v1=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>`. Sign the raw body bytes as received.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Node's IncomingHttpHeaders, a fetch Headers, or a plain record (names in any case). */
export type PushHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** How far the timestamp may be from now, in seconds (default 300): an older push is refused as a replay. */
  toleranceSeconds?: number;
  /** Now, in unix seconds (default the clock). */
  nowSeconds?: number;
}

function header(headers: PushHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name);
  const value = entry?.[1];
  return Array.isArray(value) ? value[0] : value;
}

/** True when the push carries a valid signature by `secret` made within the tolerance of now. */
export function verifyPushSignature(
  headers: PushHeaders,
  rawBody: string | Uint8Array,
  secret: string,
  options: VerifyOptions = {},
): boolean {
  const timestamp = header(headers, 'x-yona-timestamp');
  const signature = header(headers, 'x-yona-signature');
  const seconds = Number(timestamp);
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (!timestamp || !/^\d+$/.test(timestamp) || !signature) return false;
  if (Math.abs(now - seconds) > (options.toleranceSeconds ?? 300)) return false;
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const mac = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
  const expected = Buffer.from(`v1=${mac}`);
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
