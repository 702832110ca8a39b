// The operator console's sign-in state: sessions (only the SHA-256 of the cookie's id is stored), failed
// sign-ins per name and address, the TOTP enrolment and the last accepted TOTP step. Kept apart from the
// customers' console_sessions: a customer's session never opens /admin and an operator's never opens /console.
import type { Queryable } from './engine/db.ts';

export interface OperatorSession {
  id: number;
  operatorId: number;
  csrf: string;
  lastSeenAt: number;
  expiresAt: number;
}

export async function insertOperatorSession(
  db: Queryable,
  s: { idHash: string; operatorId: number; csrf: string; now: number; expiresAt: number },
): Promise<void> {
  await db
    .insertInto('operator_sessions')
    .values({
      id_hash: s.idHash,
      operator_id: s.operatorId,
      csrf: s.csrf,
      created_at: s.now,
      last_seen_at: s.now,
      expires_at: s.expiresAt,
    })
    .execute();
}

export async function findOperatorSession(db: Queryable, idHash: string): Promise<OperatorSession | undefined> {
  const row = await db
    .selectFrom('operator_sessions')
    .select(['id', 'operator_id', 'csrf', 'last_seen_at', 'expires_at'])
    .where('id_hash', '=', idHash)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    id: Number(row.id),
    operatorId: Number(row.operator_id),
    csrf: row.csrf,
    lastSeenAt: Number(row.last_seen_at),
    expiresAt: Number(row.expires_at),
  };
}

export async function touchOperatorSession(db: Queryable, id: number, now: number): Promise<void> {
  await db.updateTable('operator_sessions').set({ last_seen_at: now }).where('id', '=', id).execute();
}

export async function deleteOperatorSession(db: Queryable, id: number): Promise<void> {
  await db.deleteFrom('operator_sessions').where('id', '=', id).execute();
}

export async function deleteExpiredOperatorSessions(db: Queryable, now: number, idleMs: number): Promise<void> {
  await db
    .deleteFrom('operator_sessions')
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', now - idleMs)]))
    .execute();
}

export async function recordOperatorFailure(db: Queryable, name: string, address: string, now: number): Promise<void> {
  await db.insertInto('operator_login_failures').values({ name, address, failed_at: now }).execute();
}

/** Failed sign-ins for this name from this address since `since`, and the latest. */
export async function recentOperatorFailures(
  db: Queryable,
  name: string,
  address: string,
  since: number,
): Promise<{ count: number; last: number }> {
  const row = await db
    .selectFrom('operator_login_failures')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('failed_at').as('last')])
    .where('name', '=', name)
    .where('address', '=', address)
    .where('failed_at', '>', since)
    .executeTakeFirst();
  return { count: Number(row?.n ?? 0), last: Number(row?.last ?? 0) };
}

export async function clearOperatorFailures(db: Queryable, name: string, address: string): Promise<void> {
  await db.deleteFrom('operator_login_failures').where('name', '=', name).where('address', '=', address).execute();
}

/** Enrols the operator's TOTP secret (sealed), only when none is set yet; false otherwise. */
export async function enrolOperatorTotp(
  db: Queryable,
  operatorId: number,
  sealed: string,
  step: number,
): Promise<boolean> {
  const result = await db
    .updateTable('operators')
    .set({ totp_secret: sealed, totp_last_step: step })
    .where('id', '=', operatorId)
    .where('totp_secret', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Records `step` as the last accepted TOTP step when later than the recorded one; false otherwise (a code counts once). */
export async function acceptOperatorTotpStep(db: Queryable, operatorId: number, step: number): Promise<boolean> {
  const result = await db
    .updateTable('operators')
    .set({ totp_last_step: step })
    .where('id', '=', operatorId)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
