// The operator's sign-in at /admin: the password (argon2id), then a TOTP code, always. At the first sign-in an
// operator has no authenticator yet: the password step offers a new secret (as text, an otpauth:// address and a
// QR code) and the first right code enrols it and signs in. Failures (a wrong password or code) count towards a
// lockout per name and address; sessions live as the customer console's do (session-lifecycle.ts: the cookie holds
// a random id, the store its SHA-256, idle and absolute expiry) with a CSRF token, in their own table and cookie: a
// customer's console session never opens /admin, and an operator's never opens /console.
import { hashPassword, verifyPassword } from '../../domain/password.ts';
import { seal, unseal } from '../../domain/sealed.ts';
import { newTotpSecret, totpStep } from '../../domain/totp.ts';
import type { Queryable } from '../../store/engine/db.ts';
import {
  acceptOperatorTotpStep,
  clearOperatorFailures,
  deleteExpiredOperatorSessions,
  deleteOperatorSession,
  enrolOperatorTotp,
  findOperatorSession,
  insertOperatorSession,
  recentOperatorFailures,
  recordOperatorFailure,
  touchOperatorSession,
  type OperatorSession,
} from '../../store/operator-sessions.ts';
import { findOperatorById, findOperatorByName, type Operator } from '../../store/read-models.ts';
import { ADDRESS_ATTEMPTS_PER_MINUTE, LOCK_FAILURES, LOCK_WINDOW_MS } from '../console/session.ts';
import { randomId, SessionLifecycle } from '../session-lifecycle.ts';

export const ADMIN_SESSION_COOKIE = '__Host-yona_admin_session';
export const ADMIN_LOGIN_CSRF_COOKIE = '__Host-yona_admin_login';
/** Between a right password and the code (or the enrolment): who signs in, sealed with the service's key. */
export const ADMIN_STEP_COOKIE = '__Host-yona_admin_step';
export const ADMIN_STEP_MS = 5 * 60_000;

interface Pending {
  id: number;
  name: string;
  until: number;
  /** A new secret offered for enrolment (the operator has none yet). */
  secret?: string;
}

export type OperatorLogin =
  | { ok: true; sessionId: string }
  /** The password was right: the code step (or, with `secret`, the enrolment), with its sealed state. */
  | { ok: 'code'; pending: string; secret?: string; name: string }
  | { ok: false; reason: 'invalid' | 'locked' | 'rate' | 'code' | 'expired'; retryMinutes?: number; name?: string };

export type OperatorRefused = Extract<OperatorLogin, { ok: false }>;

let dummyHash: Promise<string> | undefined;

export class OperatorAuth {
  private minute = 0;
  private attempts = new Map<string, number>();
  private readonly sessions: SessionLifecycle<OperatorSession>;

  constructor(
    private readonly db: () => Queryable,
    private readonly sealingKey: () => Buffer,
  ) {
    this.sessions = new SessionLifecycle(db, {
      insert: (q, s) => insertOperatorSession(q, { ...s, operatorId: s.ownerId }),
      find: findOperatorSession,
      touch: touchOperatorSession,
      remove: deleteOperatorSession,
      removeExpired: deleteExpiredOperatorSessions,
    });
  }

  private allow(address: string, now: number): boolean {
    const minute = Math.floor(now / 60_000);
    if (minute !== this.minute) {
      this.minute = minute;
      this.attempts.clear();
    }
    const n = (this.attempts.get(address) ?? 0) + 1;
    this.attempts.set(address, n);
    return n <= ADDRESS_ATTEMPTS_PER_MINUTE;
  }

  /** The password step: on success the code step's sealed state (and a new secret when not enrolled yet). */
  async login(rawName: string, password: string, address: string, now: number): Promise<OperatorLogin> {
    if (!this.allow(address, now)) return { ok: false, reason: 'rate', retryMinutes: 1 };
    const name = rawName.trim().slice(0, 200);
    const locked = await this.locked(name, address, now);
    if (locked) return locked;
    const operator = name ? await findOperatorByName(this.db(), name) : undefined;
    dummyHash ??= hashPassword(randomId());
    const good = operator
      ? await verifyPassword(operator.passwordHash, password).catch(() => false)
      : await verifyPassword(await dummyHash, password).then(
          () => false,
          () => false,
        );
    if (!operator || !good) return this.failed(name, address, now, 'invalid');
    const secret = operator.totpSecret === null ? newTotpSecret() : undefined;
    const state: Pending = { id: operator.id, name, until: now + ADMIN_STEP_MS, ...(secret ? { secret } : {}) };
    return { ok: 'code', pending: seal(this.sealingKey(), JSON.stringify(state)), secret, name };
  }

  /** The pending step's state, if it is still good (for the page that asks for the code). */
  pendingStep(pending: string | undefined, now: number): Pending | undefined {
    try {
      const state = JSON.parse(unseal(this.sealingKey(), pending ?? '')) as Pending;
      return state.until > now ? state : undefined;
    } catch {
      return undefined;
    }
  }

  /** The code step: enrols the offered secret at the first sign-in, else checks the code (each step's once). */
  async code(pending: string | undefined, code: string, address: string, now: number): Promise<OperatorLogin> {
    if (!this.allow(address, now)) return { ok: false, reason: 'rate', retryMinutes: 1 };
    const state = this.pendingStep(pending, now);
    if (!state) return { ok: false, reason: 'expired' };
    const locked = await this.locked(state.name, address, now);
    if (locked) return locked;
    const db = this.db();
    const operator = await findOperatorById(db, state.id);
    if (!operator || operator.name !== state.name) return { ok: false, reason: 'expired' };
    const given = code.replace(/\s/g, '');
    if (operator.totpSecret === null) {
      if (!state.secret) return { ok: false, reason: 'expired' };
      const step = totpStep(state.secret, given, now);
      if (
        step === undefined ||
        !(await enrolOperatorTotp(db, operator.id, seal(this.sealingKey(), state.secret), step))
      )
        return { ...(await this.failed(state.name, address, now, 'code')), name: state.name };
    } else {
      const step = totpStep(unseal(this.sealingKey(), operator.totpSecret), given, now);
      if (step === undefined || !(await acceptOperatorTotpStep(db, operator.id, step)))
        return { ...(await this.failed(state.name, address, now, 'code')), name: state.name };
    }
    return this.startSession(operator, address, now);
  }

  private async locked(name: string, address: string, now: number): Promise<OperatorRefused | undefined> {
    const failures = await recentOperatorFailures(this.db(), name, address, now - LOCK_WINDOW_MS);
    if (failures.count < LOCK_FAILURES) return undefined;
    return {
      ok: false,
      reason: 'locked',
      retryMinutes: Math.max(1, Math.ceil((failures.last + LOCK_WINDOW_MS - now) / 60_000)),
    };
  }

  private async failed(
    name: string,
    address: string,
    now: number,
    reason: 'invalid' | 'code',
  ): Promise<OperatorRefused> {
    await recordOperatorFailure(this.db(), name, address, now);
    return (await this.locked(name, address, now)) ?? { ok: false, reason };
  }

  private async startSession(operator: Operator, address: string, now: number): Promise<OperatorLogin> {
    await clearOperatorFailures(this.db(), operator.name, address);
    return { ok: true, sessionId: await this.sessions.start(operator.id, now) };
  }

  /** The live session for a cookie value and its operator (expired sessions removed). */
  async resume(
    sessionId: string | undefined,
    now: number,
  ): Promise<{ session: OperatorSession; operator: Operator } | undefined> {
    const live = await this.sessions.resume(sessionId, now, async (db, session) => {
      const operator = await findOperatorById(db, session.operatorId);
      return operator && operator.totpSecret !== null ? operator : undefined;
    });
    return live && { session: live.session, operator: live.owner };
  }

  async logout(session: OperatorSession): Promise<void> {
    await this.sessions.end(session);
  }
}
