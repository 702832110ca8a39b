// Secrets kept in the store only encrypted: AES-256-GCM under the service's sealing key, written as
// `v1.<iv>.<tag>.<ciphertext>` (base64url). Opening with another key, or a changed value, fails.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** Bytes in a sealing key (AES-256). */
export const SEALING_KEY_BYTES = 32;

/** Encrypts `plain` under `key`. */
export function seal(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join(
    '.',
  );
}

/** Decrypts a value `seal` wrote; throws when it was sealed under another key or altered. */
export function unseal(key: Buffer, sealed: string): string {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== 'v1' || iv === undefined || tag === undefined || body === undefined)
    throw new Error('not a sealed value');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}
