// Console sign-in: argon2id passwords, a lockout per username and address (failures from one address never lock
// the owner out elsewhere), a rate limit per address, a suspended account refused, server-side
// sessions (the cookie holds a random id; the store keeps its SHA-256), idle and absolute expiry, CSRF tokens.
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { hashPassword, verifyPassword } from '../../domain/password.ts';
import { findAccountById, type Account } from '../../store/accounts.ts';
import {
  clearLoginFailures,
  deleteConsoleSession,
  deleteExpiredConsoleSessions,
  findConsoleSession,
  findLoginAccount,
  insertConsoleSession,
  recentLoginFailures,
  recordLoginFailure,
  touchConsoleSession,
  type ConsoleSession,
} from '../../store/console-sessions.ts';
import type { Queryable } from '../../store/db.ts';
import { secondFactorPasses } from './two-factor.ts';

export const SESSION_COOKIE = '__Host-yona_session';
export const LOGIN_CSRF_COOKIE = '__Host-yona_login';
/** A session ends after this long without a request... */
export const IDLE_MS = 30 * 60_000;
/** ...and this long after sign-in in any case. */
export const ABSOLUTE_MS = 12 * 3600_000;
/** Failed logins for one username from one address within LOCK_WINDOW_MS that lock it there until LOCK_WINDOW_MS after the last. */
export const LOCK_FAILURES = 5;
export const LOCK_WINDOW_MS = 15 * 60_000;
/** Login attempts per client address per minute (any username). */
export const ADDRESS_ATTEMPTS_PER_MINUTE = 20;
const TOUCH_EVERY_MS = 60_000;

export function randomId(): string {
  return randomBytes(32).toString('base64url');
}

function sha256(text: string): string {
  return hash('sha256', text, 'hex');
}

export function sameSecret(a: string | null | undefined, b: string | null | undefined): boolean {
  if (!a || !b) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Attempts per address in the current minute (in memory: a restart forgets them; the lockout is stored). */
class AddressLimiter {
  private minute = 0;
  private counts = new Map<string, number>();
  allow(address: string, now: number): boolean {
    const minute = Math.floor(now / 60_000);
    if (minute !== this.minute) {
      this.minute = minute;
      this.counts.clear();
    }
    const n = (this.counts.get(address) ?? 0) + 1;
    this.counts.set(address, n);
    return n <= ADDRESS_ATTEMPTS_PER_MINUTE;
  }
}

export type LoginResult =
  | { ok: true; sessionId: string }
  | {
      ok: false;
      reason: 'invalid' | 'locked' | 'rate' | 'suspended' | 'code';
      retryMinutes?: number;
      /** This failure locked the name. */
      lockedNow?: true;
    };

let dummyHash: Promise<string> | undefined;

export class ConsoleAuth {
  private readonly limiter = new AddressLimiter();

  constructor(
    private readonly db: () => Queryable,
    private readonly sealingKey: () => Buffer,
  ) {}

  /**
   * Checks the password (and, when the account turned two-factor on, `code`: its authenticator's code or a
   * recovery code); on success stores a new session and returns its id (for the cookie only).
   */
  async login(username: string, password: string, address: string, now: number, code = ''): Promise<LoginResult> {
    if (!this.limiter.allow(address, now)) return { ok: false, reason: 'rate', retryMinutes: 1 };
    const db = this.db();
    const name = username.trim().slice(0, 200);
    const failures = await recentLoginFailures(db, name, address, now - LOCK_WINDOW_MS);
    if (failures.count >= LOCK_FAILURES) {
      return {
        ok: false,
        reason: 'locked',
        retryMinutes: Math.max(1, Math.ceil((failures.last + LOCK_WINDOW_MS - now) / 60_000)),
      };
    }
    const account = name ? await findLoginAccount(db, name) : undefined;
    // An unknown name costs the same hash as a known one, so timing does not tell which names exist.
    dummyHash ??= hashPassword(randomId());
    const good = account
      ? await verifyPassword(account.passwordHash, password).catch(() => false)
      : await verifyPassword(await dummyHash, password).then(
          () => false,
          () => false,
        );
    if (!account || !good) {
      await recordLoginFailure(db, name, address, now);
      if (failures.count + 1 >= LOCK_FAILURES)
        return { ok: false, reason: 'locked', retryMinutes: Math.ceil(LOCK_WINDOW_MS / 60_000), lockedNow: true };
      return { ok: false, reason: 'invalid' };
    }
    if (account.suspended) return { ok: false, reason: 'suspended' };
    if (
      account.totpSecret !== null &&
      !(await secondFactorPasses(
        db,
        this.sealingKey(),
        { id: account.id, sealedSecret: account.totpSecret },
        code,
        now,
      ))
    ) {
      await recordLoginFailure(db, name, address, now);
      return { ok: false, reason: 'code' };
    }
    await clearLoginFailures(db, name);
    await deleteExpiredConsoleSessions(db, now, IDLE_MS);
    const sessionId = randomId();
    await insertConsoleSession(db, {
      idHash: sha256(sessionId),
      accountId: account.id,
      csrf: randomId(),
      now,
      expiresAt: now + ABSOLUTE_MS,
    });
    return { ok: true, sessionId };
  }

  /** The live session for a cookie value and its account; expired sessions are removed. */
  async resume(
    sessionId: string | undefined,
    now: number,
  ): Promise<{ session: ConsoleSession; account: Account } | undefined> {
    if (!sessionId || sessionId.length > 100) return undefined;
    const db = this.db();
    const session = await findConsoleSession(db, sha256(sessionId));
    if (!session) return undefined;
    if (session.expiresAt <= now || session.lastSeenAt + IDLE_MS <= now) {
      await deleteConsoleSession(db, session.id);
      return undefined;
    }
    const account = await findAccountById(db, session.accountId);
    if (!account || account.suspended_at != null) return undefined;
    if (now - session.lastSeenAt >= TOUCH_EVERY_MS) await touchConsoleSession(db, session.id, now);
    return { session, account };
  }

  async logout(session: ConsoleSession): Promise<void> {
    await deleteConsoleSession(this.db(), session.id);
  }
}
