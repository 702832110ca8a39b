// One-time codes: drawn from the system's cryptographic RNG, kept only as a keyed salted hash, compared in
// constant time, and placed in the message where its text says `[code]`.
import { createHmac, hkdfSync, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

/** The placeholder a code replaces in the message text. */
export const CODE_PLACEHOLDER = '[code]';
/** The message when `text` is not given. */
export const DEFAULT_OTP_TEXT = 'the code is [code]';
export const MIN_TRIES = 3;
export const MAX_TRIES = 5;
export const DEFAULT_TRIES = 3;
export const MIN_VALID_MINUTES = 1;
export const MAX_VALID_MINUTES = 15;
export const DEFAULT_VALID_MINUTES = 5;
export const DEFAULT_APP_ID = 1;

/**
 * The key codes are hashed with, derived from the service's sealing key. A keyed hash (HMAC-SHA-256, with a
 * salt per code) rather than a slow one: a code has a million values, so only a key kept out of the database
 * stops a stolen hash from being tried against all of them, and it costs microseconds inside the transaction.
 */
export function codeHashKey(sealingKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', sealingKey, Buffer.alloc(0), 'yona one-time code hash', 32));
}

/** A code of `digits` decimal digits, uniformly drawn (leading zeros kept). */
export function newCode(digits: number): string {
  return String(randomInt(0, 10 ** digits)).padStart(digits, '0');
}

function mac(key: Buffer, salt: Buffer, code: string): Buffer {
  return createHmac('sha256', key).update(salt).update(code).digest();
}

/** `hmac$salt$mac` of a code, with a fresh random salt. */
export function hashCode(key: Buffer, code: string): string {
  const salt = randomBytes(16);
  return ['hmac', salt.toString('base64url'), mac(key, salt, code).toString('base64url')].join('$');
}

/** Whether `code` is the one `stored` was made from; the comparison takes the same time wherever they differ. */
export function codeMatches(key: Buffer, stored: string, code: string): boolean {
  const [scheme, salt, expected] = stored.split('$');
  if (scheme !== 'hmac' || !salt || !expected) return false;
  return timingSafeEqual(mac(key, Buffer.from(salt, 'base64url'), code), Buffer.from(expected, 'base64url'));
}

/** The message with every `[code]` replaced by the code. */
export function fillCode(template: string, code: string): string {
  return template.replaceAll(CODE_PLACEHOLDER, code);
}
