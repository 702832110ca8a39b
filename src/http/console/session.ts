// Console sign-in: argon2id passwords, a lockout per username and address (failures from one address never lock
// the owner out elsewhere), a per-account ceiling that slows guessing from many addresses (guessing.ts), a rate
// limit per address, a suspended account refused, server-side
// sessions (session-lifecycle.ts: the cookie holds a random id, the store its SHA-256; idle and absolute expiry),
// CSRF tokens.
import { timingSafeEqual } from 'node:crypto';
import { hashPassword, verifyPassword } from '../../domain/password.ts';
import type { Account } from '../../store/accounts.ts';
import { findAccountById } from '../../store/read-models.ts';
import {
  clearAddressFailures,
  deleteConsoleSession,
  deleteExpiredConsoleSessions,
  findConsoleSession,
  findLoginAccount,
  insertConsoleSession,
  recentAccountFailures,
  recentLoginFailures,
  recordLoginFailure,
  touchConsoleSession,
  type ConsoleSession,
} from '../../store/console-sessions.ts';
import type { Queryable } from '../../store/engine/db.ts';
import { randomId, SessionLifecycle } from '../session-lifecycle.ts';
import { ACCOUNT_CEILING, ACCOUNT_WINDOW_MS, AccountGate, accountPace, type AccountFailures } from './guessing.ts';
import { secondFactorPasses } from './two-factor.ts';
import { seal, unseal } from '../../domain/sealed.ts';
import { accountRefusal, type AccountRefusal } from '../../domain/accounts.ts';

// A reseller's suspension says who to ask; the operator's (or a closed account) says nothing of why.
const refusalReason = (refusal: AccountRefusal) =>
  refusal === 'suspended-by-reseller' ? ('suspended' as const) : ('unavailable' as const);

export const SESSION_COOKIE = '__Host-yona_session';
export const LOGIN_CSRF_COOKIE = '__Host-yona_login';
/** Between a right password and the second factor: who signs in, sealed with the service's key. */
export const SECOND_STEP_COOKIE = '__Host-yona_second_step';
/** The second step must follow the password within this long. */
export const SECOND_STEP_MS = 5 * 60_000;
export { ABSOLUTE_MS, IDLE_MS, randomId } from '../session-lifecycle.ts';
/** Failed logins for one username from one address within LOCK_WINDOW_MS that lock it there until LOCK_WINDOW_MS after the last. */
export const LOCK_FAILURES = 5;
export const LOCK_WINDOW_MS = 15 * 60_000;
/** Login attempts per client address per minute (any username). */
export const ADDRESS_ATTEMPTS_PER_MINUTE = 20;

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
  /** The password was right and the account has two-factor on: the second step's sealed state (for its cookie). */
  | { ok: 'second-step'; pending: string }
  | {
      ok: false;
      reason: 'invalid' | 'locked' | 'slowed' | 'rate' | 'suspended' | 'unavailable' | 'code' | 'expired';
      retryMinutes?: number;
      /** Slowed: whole seconds until the account's next attempt is looked at. */
      retrySeconds?: number;
      /** This failure locked the name. */
      lockedNow?: true;
      /** This failure is past the account's ceiling: its failures in the window, and the wait it now imposes. */
      attack?: AccountFailures;
      /** The username the second step was for (the first step's is the one typed). */
      username?: string;
    };

export type Refused = Extract<LoginResult, { ok: false }>;

let dummyHash: Promise<string> | undefined;

export class ConsoleAuth {
  private readonly limiter = new AddressLimiter();
  private readonly gate = new AccountGate();
  private readonly sessions: SessionLifecycle<ConsoleSession>;

  constructor(
    private readonly db: () => Queryable,
    private readonly sealingKey: () => Buffer,
  ) {
    this.sessions = new SessionLifecycle(db, {
      insert: (q, s) => insertConsoleSession(q, { ...s, accountId: s.ownerId }),
      find: findConsoleSession,
      touch: touchConsoleSession,
      remove: deleteConsoleSession,
      removeExpired: deleteExpiredConsoleSessions,
    });
  }

  /**
   * Checks the password; on success stores a new session and returns its id (for the cookie only), or, when
   * the account turned two-factor on, returns the sealed state of the second step (see secondStep).
   */
  async login(username: string, password: string, address: string, now: number): Promise<LoginResult> {
    if (!this.limiter.allow(address, now)) return { ok: false, reason: 'rate', retryMinutes: 1 };
    const name = username.trim().slice(0, 200);
    return this.gate.run(name, () => this.checkPassword(name, password, address, now));
  }

  private async checkPassword(name: string, password: string, address: string, now: number): Promise<LoginResult> {
    const db = this.db();
    const held = await this.held(name, address, now);
    if (held) return held;
    const account = name ? await findLoginAccount(db, name) : undefined;
    // An unknown name costs the same hash as a known one, so timing does not tell which names exist.
    dummyHash ??= hashPassword(randomId());
    const good = account
      ? await verifyPassword(account.passwordHash, password).catch(() => false)
      : await verifyPassword(await dummyHash, password).then(
          () => false,
          () => false,
        );
    if (!account || !good) return this.failed(name, address, now, 'invalid');
    if (account.refusal) return { ok: false, reason: refusalReason(account.refusal) };
    if (account.totpSecret !== null) {
      const pending = seal(this.sealingKey(), JSON.stringify({ id: account.id, name, until: now + SECOND_STEP_MS }));
      return { ok: 'second-step', pending };
    }
    return this.startSession(name, address, account.id, now);
  }

  /**
   * A signed-in form's check of the account's current password (changing it, turning two-factor off): held and
   * counted like a sign-in, so a session left open cannot be used to guess the password.
   */
  async confirmPassword(
    name: string,
    address: string,
    now: number,
    check: () => Promise<boolean>,
  ): Promise<{ ok: true } | Refused> {
    return this.gate.run(name, async () => {
      const held = await this.held(name, address, now);
      if (held) return held;
      if (await check()) return { ok: true } as const;
      return this.failed(name, address, now, 'invalid');
    });
  }

  /**
   * The second step of a two-factor sign-in: `pending` from login (within SECOND_STEP_MS) and the code of the
   * account's authenticator (each step's code once) or one of its recovery codes. Failures count towards the
   * same lockout as wrong passwords.
   */
  async secondStep(pending: string | undefined, code: string, address: string, now: number): Promise<LoginResult> {
    if (!this.limiter.allow(address, now)) return { ok: false, reason: 'rate', retryMinutes: 1 };
    let who: { id: number; name: string; until: number };
    try {
      who = JSON.parse(unseal(this.sealingKey(), pending ?? ''));
    } catch {
      return { ok: false, reason: 'expired' };
    }
    if (!(who.until > now)) return { ok: false, reason: 'expired' };
    return this.gate.run(who.name, () => this.checkCode(who, code, address, now));
  }

  private async checkCode(
    who: { id: number; name: string },
    code: string,
    address: string,
    now: number,
  ): Promise<LoginResult> {
    const held = await this.held(who.name, address, now);
    if (held) return held;
    const db = this.db();
    const account = await findLoginAccount(db, who.name);
    if (!account || account.id !== who.id || account.totpSecret === null) return { ok: false, reason: 'expired' };
    if (account.refusal) return { ok: false, reason: refusalReason(account.refusal) };
    const passes = await secondFactorPasses(
      db,
      this.sealingKey(),
      { id: account.id, sealedSecret: account.totpSecret },
      code,
      now,
    );
    if (!passes) return { ...(await this.failed(who.name, address, now, 'code')), username: who.name };
    return this.startSession(who.name, address, account.id, now);
  }

  private async accountFailures(name: string, now: number): Promise<AccountFailures> {
    return accountPace(await recentAccountFailures(this.db(), name, now - ACCOUNT_WINDOW_MS), now);
  }

  /** Refused before the password or code is looked at: locked for this address, or the account slowed. */
  private async held(name: string, address: string, now: number): Promise<Refused | undefined> {
    const locked = await this.lockedOut(name, address, now);
    if (locked) return locked;
    const account = await this.accountFailures(name, now);
    if (account.retrySeconds > 0) return { ok: false, reason: 'slowed', retrySeconds: account.retrySeconds };
    return undefined;
  }

  private async lockedOut(name: string, address: string, now: number): Promise<Refused | undefined> {
    const failures = await recentLoginFailures(this.db(), name, address, now - LOCK_WINDOW_MS);
    if (failures.count < LOCK_FAILURES) return undefined;
    return {
      ok: false,
      reason: 'locked',
      retryMinutes: Math.max(1, Math.ceil((failures.last + LOCK_WINDOW_MS - now) / 60_000)),
    };
  }

  private async failed(name: string, address: string, now: number, reason: 'invalid' | 'code'): Promise<Refused> {
    const db = this.db();
    await recordLoginFailure(db, name, address, now);
    const failures = await recentLoginFailures(db, name, address, now - LOCK_WINDOW_MS);
    const account = await this.accountFailures(name, now);
    const attack = account.failures > ACCOUNT_CEILING ? account : undefined;
    if (failures.count >= LOCK_FAILURES)
      return { ok: false, reason: 'locked', retryMinutes: Math.ceil(LOCK_WINDOW_MS / 60_000), lockedNow: true, attack };
    return { ok: false, reason, attack };
  }

  /** A right password (and code): a new session; this address's failures on the name are forgotten (not others'). */
  private async startSession(name: string, address: string, accountId: number, now: number): Promise<LoginResult> {
    await clearAddressFailures(this.db(), name, address);
    return { ok: true, sessionId: await this.sessions.start(accountId, now) };
  }

  /** The live session for a cookie value and its account; expired sessions are removed. */
  async resume(
    sessionId: string | undefined,
    now: number,
  ): Promise<{ session: ConsoleSession; account: Account } | undefined> {
    const live = await this.sessions.resume(sessionId, now, async (db, session) => {
      const account = await findAccountById(db, session.accountId);
      return account && accountRefusal(account) === null ? account : undefined;
    });
    return live && { session: live.session, account: live.owner };
  }

  async logout(session: ConsoleSession): Promise<void> {
    await this.sessions.end(session);
  }
}
