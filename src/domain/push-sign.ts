// Push signing: when an account has a secret, each push carries X-Yona-Timestamp (unix seconds) and
// X-Yona-Signature `v1=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>` (see docs/push.md). Receivers verify
// with the SDK's verifyPushSignature (sdk/src/push.ts).
import { createHmac, randomBytes } from 'node:crypto';

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
