// API tokens: random secrets with a recognisable prefix, stored only as SHA-256.
import { createHash, randomBytes } from 'node:crypto';

export const TOKEN_PREFIX = 'yona_';
/** Tokens active per user at once (the spec's limit). */
export const MAX_ACTIVE_TOKENS = 5;

/** A new token: prefix + 32 random bytes, base64url. */
export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** The only form a token is stored in. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The read-back form of a token: prefix and last 4 characters, the rest hidden. */
export function maskToken(prefix: string, last4: string): string {
  return `${prefix}${'*'.repeat(8)}${last4}`;
}

/** Parses durations like `90d`, `12h`, `30m`, `2s`, `1y` into milliseconds; null when malformed. */
export function parseDuration(text: string): number | null {
  const m = /^(\d+)\s*(ms|s|m|h|d|w|y)$/.exec(text.trim());
  if (!m) return null;
  const unit = { ms: 1, s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 7 * 86400e3, y: 365 * 86400e3 }[m[2]]!;
  return Number(m[1]) * unit;
}
