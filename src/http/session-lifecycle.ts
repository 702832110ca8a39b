// A signed-in session's life, the same for the customer console and the operator console: the cookie holds a
// random id and the store only its SHA-256; a session ends IDLE_MS after its last request and ABSOLUTE_MS after
// sign-in in any case, and its last request is written at most once a minute. Each console passes the store
// functions of its own session table, and its own check of who the session belongs to.
import { hash, randomBytes } from 'node:crypto';
import type { Queryable } from '../store/engine/db.ts';

/** A session ends after this long without a request... */
export const IDLE_MS = 30 * 60_000;
/** ...and this long after sign-in in any case. */
export const ABSOLUTE_MS = 12 * 3600_000;
/** How stale a session's last request may be before a request writes it again. */
const TOUCH_EVERY_MS = 60_000;

/** A new random id (sessions, CSRF tokens): 32 bytes, base64url. */
export function randomId(): string {
  return randomBytes(32).toString('base64url');
}

const sha256 = (text: string) => hash('sha256', text, 'hex');

/** What a session row holds for its lifecycle. */
export interface LiveSession {
  id: number;
  lastSeenAt: number;
  expiresAt: number;
}

/** The store functions of one session table. */
export interface SessionTable<S extends LiveSession> {
  insert(
    db: Queryable,
    s: { idHash: string; ownerId: number; csrf: string; now: number; expiresAt: number },
  ): Promise<void>;
  find(db: Queryable, idHash: string): Promise<S | undefined>;
  touch(db: Queryable, id: number, now: number): Promise<void>;
  remove(db: Queryable, id: number): Promise<void>;
  removeExpired(db: Queryable, now: number, idleMs: number): Promise<void>;
}

export class SessionLifecycle<S extends LiveSession> {
  constructor(
    private readonly db: () => Queryable,
    private readonly table: SessionTable<S>,
  ) {}

  /** A new session for the owner (expired ones removed first); answers its id, for the cookie only. */
  async start(ownerId: number, now: number): Promise<string> {
    const db = this.db();
    await this.table.removeExpired(db, now, IDLE_MS);
    const sessionId = randomId();
    await this.table.insert(db, {
      idHash: sha256(sessionId),
      ownerId,
      csrf: randomId(),
      now,
      expiresAt: now + ABSOLUTE_MS,
    });
    return sessionId;
  }

  /**
   * The live session for a cookie value and its owner as `ownerOf` finds it (undefined: the owner may no longer
   * sign in); an expired session is removed.
   */
  async resume<O>(
    sessionId: string | undefined,
    now: number,
    ownerOf: (db: Queryable, session: S) => Promise<O | undefined>,
  ): Promise<{ session: S; owner: O } | undefined> {
    if (!sessionId || sessionId.length > 100) return undefined;
    const db = this.db();
    const session = await this.table.find(db, sha256(sessionId));
    if (!session) return undefined;
    if (session.expiresAt <= now || session.lastSeenAt + IDLE_MS <= now) {
      await this.table.remove(db, session.id);
      return undefined;
    }
    const owner = await ownerOf(db, session);
    if (owner === undefined) return undefined;
    if (now - session.lastSeenAt >= TOUCH_EVERY_MS) await this.table.touch(db, session.id, now);
    return { session, owner };
  }

  async end(session: S): Promise<void> {
    await this.table.remove(this.db(), session.id);
  }
}
