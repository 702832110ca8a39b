// API tokens: random secrets with a recognisable prefix, stored only as SHA-256.
import { hash, randomBytes } from 'node:crypto';

export const TOKEN_PREFIX = 'yona_';
/** Tokens active per user at once (the spec's limit). */
export const MAX_ACTIVE_TOKENS = 5;

/** A new token: prefix + 32 random bytes, base64url. */
export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** The only form a token is stored in (one-shot hash: every API request runs this). */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
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
