// Push signing: when an account has a secret, each push carries X-Yona-Timestamp (unix seconds) and
// X-Yona-Signature `v1=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>` (see docs/push.md).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Prefix of generated signing secrets (recognisable in config files and leak scanners). */
export const PUSH_SECRET_PREFIX = 'whsec_';

/** A new signing secret: prefix + 32 random bytes, base64url. */
export function generatePushSecret(): string {
  return PUSH_SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/** The X-Yona-Signature value for a body sent at `timestamp` (unix seconds). */
export function signPush(secret: string, timestamp: number, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** Receiver-side check (also what docs/push.md shows): signature matches and timestamp within tolerance. */
export function verifyPushSignature(
  secret: string,
  header: { timestamp: string | undefined; signature: string | undefined },
  body: string,
  nowSeconds = Math.floor(Date.now() / 1000),
  toleranceSeconds = 300,
): boolean {
  const ts = Number(header.timestamp);
  if (!Number.isInteger(ts) || Math.abs(nowSeconds - ts) > toleranceSeconds || !header.signature) return false;
  const expected = Buffer.from(signPush(secret, ts, body));
  const given = Buffer.from(header.signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
