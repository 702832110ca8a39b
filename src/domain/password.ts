// Account passwords: argon2id hashes only (console logins and sub-account creation).
import { hash, verify } from '@node-rs/argon2';

/** An argon2id hash of the password. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: 2 });
}

/** True when the password matches the stored hash. */
export function verifyPassword(storedHash: string, password: string): Promise<boolean> {
  return verify(storedHash, password);
}
