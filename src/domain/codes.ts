// Unguessable codes for public links (`/l/`, `/u/`, `/v/`): 96 random bits, base64url (16 characters).
import { randomBytes } from 'node:crypto';

/** Length of every public code, so texts holding one can be measured before the code exists. */
export const PUBLIC_CODE_LENGTH = 16;

/** A fresh random code of PUBLIC_CODE_LENGTH base64url characters (96 bits). */
export function newPublicCode(): string {
  return randomBytes(12).toString('base64url');
}

/** Many codes at once (one randomBytes call: cheaper for 100,000 recipients). */
export function newPublicCodes(count: number): string[] {
  const pool = randomBytes(12 * count);
  const codes = new Array<string>(count);
  for (let i = 0; i < count; i++) codes[i] = pool.subarray(i * 12, i * 12 + 12).toString('base64url');
  return codes;
}

/** True when the text has the shape of a public code (checked before any lookup). */
export function looksLikePublicCode(text: string): boolean {
  return text.length === PUBLIC_CODE_LENGTH && /^[A-Za-z0-9_-]+$/.test(text);
}
