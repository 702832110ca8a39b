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

// Secrets kept at rest in a stored document or column (a carrier's password, a push signing secret) carry a
// prefix, so that a clear value an earlier version wrote is told from a sealed one and sealed in its turn.
const SEALED_AT_REST = /^sealed:v1\.[\w-]+\.[\w-]+\.[\w-]*$/;

/** A secret as the store keeps it: `sealed:v1.<iv>.<tag>.<ciphertext>`. */
export function sealAtRest(key: Buffer, plain: string): string {
  return `sealed:${seal(key, plain)}`;
}

/** Whether a stored secret is sealed (else it is a clear value, as versions before sealing wrote them). */
export function isSealedAtRest(value: string): boolean {
  return SEALED_AT_REST.test(value);
}

/** The clear value of a stored secret: opened when sealed (throws under another key), as it is when clear. */
export function openAtRest(key: Buffer, value: string): string {
  return isSealedAtRest(value) ? unseal(key, value.slice('sealed:'.length)) : value;
}

/** A document with its text `fields` sealed at rest (those already sealed, absent or not text stay as they are). */
export function sealFields(
  key: Buffer,
  document: Record<string, unknown>,
  fields: readonly string[],
): Record<string, unknown> {
  const sealed = { ...document };
  for (const field of fields) {
    const value = sealed[field];
    if (typeof value === 'string' && !isSealedAtRest(value)) sealed[field] = sealAtRest(key, value);
  }
  return sealed;
}
