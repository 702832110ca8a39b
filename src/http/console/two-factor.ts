// The console's second factor (optional, per account): a TOTP code from an authenticator app (RFC 6238,
// domain/totp.ts) or one of ten single-use recovery codes. The secret is stored sealed with the service's key;
// recovery codes only as SHA-256 hashes.
import { hash, randomBytes } from 'node:crypto';
import { seal, unseal } from '../../domain/sealed.ts';
import { base32Encode, totpStep } from '../../domain/totp.ts';
import { acceptTotpStep, setTwoFactor, useRecoveryCode } from '../../store/console-security.ts';
import type { Queryable } from '../../store/engine/db.ts';

const RECOVERY_CODES = 10;

const sha256 = (text: string) => hash('sha256', text, 'hex');
const normalCode = (code: string) => code.toUpperCase().replace(/[\s-]/g, '');

/**
 * Whether `code` is the account's current TOTP code, not used before (its step is then remembered), or one of
 * its unused recovery codes (then used up).
 */
export async function secondFactorPasses(
  db: Queryable,
  key: Buffer,
  account: { id: number; sealedSecret: string },
  code: string,
  now: number,
): Promise<boolean> {
  const given = normalCode(code);
  if (!given) return false;
  if (/^\d{6}$/.test(given)) {
    const step = totpStep(unseal(key, account.sealedSecret), given, now);
    return step !== undefined && acceptTotpStep(db, account.id, step);
  }
  return useRecoveryCode(db, account.id, sha256(given));
}

/** A secret offered for setup, sealed with the account's id so the confirming form cannot swap it. */
export function sealPending(key: Buffer, accountId: number, secret: string): string {
  return seal(key, `${accountId}:${secret}`);
}

export function openPending(key: Buffer, accountId: number, sealed: string): string | undefined {
  try {
    const [id, secret] = unseal(key, sealed).split(':');
    return Number(id) === accountId ? secret : undefined;
  } catch {
    return undefined;
  }
}

/** Turns two-factor on with `secret` (confirmed by a code of `confirmedStep`); returns the recovery codes (shown once, kept only as hashes). */
export async function enableTwoFactor(
  db: Queryable,
  key: Buffer,
  accountId: number,
  secret: string,
  confirmedStep: number,
): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODES }, () => base32Encode(randomBytes(5)));
  await setTwoFactor(db, accountId, seal(key, secret), codes.map(sha256));
  // The code that confirmed the setup counts as used: it cannot also sign in.
  await acceptTotpStep(db, accountId, confirmedStep);
  return codes.map((c) => `${c.slice(0, 4)}-${c.slice(4)}`);
}
