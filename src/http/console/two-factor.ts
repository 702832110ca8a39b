// The console's second factor (optional, per account): a TOTP code from an authenticator app (RFC 6238,
// domain/totp.ts) or one of ten single-use recovery codes. The secret is stored sealed with the service's key;
// recovery codes only as SHA-256 hashes.
import { hash } from 'node:crypto';
import { seal, unseal } from '../../domain/sealed.ts';
import { totpStep } from '../../domain/totp.ts';
import { acceptTotpStep, useRecoveryCode } from '../../store/console-security.ts';
import type { Queryable } from '../../store/engine/db.ts';

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
