// The pusher's queue queries: which registrations have due events, claiming a registration's events under
// a lease (head of each order key only), recording delivery results with the failure/backoff/disable rules,
// and pruning old rows. Claims use FOR UPDATE SKIP LOCKED on PostgreSQL; SQLite has one writer.
import { sql } from 'kysely';
import { retryDelay, type PushSettings } from '../domain/push-settings.ts';
import type { Dialect, Queryable } from './engine/db.ts';
import { dialectOf } from './engine/dialect.ts';
import { HELD } from './push.ts';
import type { PushType } from './schema/push.ts';

/** A registration the pusher may deliver to now, with the account's signing secret. */
export interface PushTarget {
  id: number;
  accountId: number;
  type: PushType;
  url: string;
  consecutiveFailures: number;
  /** The account's signing secret as stored (sealed; the pusher opens it), null when pushes go unsigned. */
  secret: string | null;
  /** The account's push URLs may reach private and loopback addresses (`yona admin push allow-private`). */
  allowPrivate: boolean;
}

/** An event claimed for delivery. */
export interface ClaimedPushEvent {
  id: number;
  registrationId: number;
  payload: string;
  createdAt: number;
}

/** What one attempt did: delivered (HTTP 200), failed, or released unsent (halted lane, shutdown). */
export interface PushResult {
  eventId: number;
  registrationId: number;
  kind: 'delivered' | 'failed' | 'released';
  startedAt: number;
  finishedAt: number;
  httpStatus: number | null;
  latencyMs: number;
  error: string | null;
}

/** A registration's failure state after results were recorded. */
export interface RegistrationOutcome {
  state: string;
  consecutiveFailures: number;
  retryAt: number;
}

function chunks<T>(items: T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

const notLeased = (now: number) => sql<boolean>`(lease_until is null or lease_until <= ${now})`;

/**
 * A column SQLite must not pick an index for (`+column`): without statistics it prefers an equality on an
 * indexed column (state = 'pending': every pending row) to a primary-key IN list or an index already in order.
 */
const unindexed = (dialect: Dialect, column: string) =>
  dialect === 'sqlite' ? sql<any>`+${sql.ref(column)}` : sql.ref<any>(column);

/**
 * Registrations with due events that may be pushed now. Due events of registrations that may not (disabled,
 * deleted, backing off: a race with recordPushEvent) are held, dropped or deferred so they stop showing up.
 */
export async function readyRegistrations(db: Queryable, now: number): Promise<PushTarget[]> {
  const due = await db
    .selectFrom('push_events')
    .select('registration_id')
    .distinct()
    .where('state', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .execute();
  const ready: PushTarget[] = [];
  for (const part of chunks(due.map((d) => Number(d.registration_id)))) {
    const regs = await db
      .selectFrom('push_registrations as r')
      .leftJoin('push_secrets as s', 's.account_id', 'r.account_id')
      .innerJoin('accounts as a', 'a.id', 'r.account_id')
      .select([
        'a.push_allow_private',
        'r.id',
        'r.account_id',
        'r.type',
        'r.url',
        'r.state',
        'r.consecutive_failures',
        'r.retry_at',
        's.secret',
      ])
      .where('r.id', 'in', part)
      .execute();
    for (const r of regs) {
      if (r.state === 'registered' && Number(r.retry_at) <= now) {
        ready.push({
          id: Number(r.id),
          accountId: Number(r.account_id),
          type: r.type,
          url: r.url,
          consecutiveFailures: Number(r.consecutive_failures),
          secret: r.secret ?? null,
          allowPrivate: Number(r.push_allow_private) === 1,
        });
        continue;
      }
      const stuck = db
        .updateTable('push_events')
        .where('registration_id', '=', r.id)
        .where('state', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .where(notLeased(now));
      if (r.state === 'deleted') await stuck.set({ state: 'dead', lease_until: null }).execute();
      else
        await stuck
          .set({ next_attempt_at: r.state === 'disabled' ? HELD : Number(r.retry_at), lease_until: null })
          .execute();
    }
  }
  return ready;
}

/** Claims up to `limit` due events of a registration in id order, skipping any whose order key has an earlier pending event. */
export async function claimPushEvents(
  db: Queryable,
  registrationId: number,
  limit: number,
  now: number,
  leaseUntil: number,
): Promise<ClaimedPushEvent[]> {
  const dialect = dialectOf(db);
  // The planner must walk push_events_reg (already in id order), not the due index plus a sort of every due
  // row: a claim then costs the same with 20 or 20,000 events waiting.
  let pick = db
    .selectFrom('push_events as e')
    .select('e.id')
    .where('e.registration_id', '=', registrationId)
    .where('e.state', '=', 'pending')
    .where(unindexed(dialect, 'e.next_attempt_at'), '<=', now)
    .where((eb) =>
      eb.or([
        eb('e.order_key', 'is', null),
        eb.not(
          eb.exists(
            eb
              .selectFrom('push_events as p')
              .select('p.id')
              .whereRef('p.registration_id', '=', 'e.registration_id')
              .whereRef('p.order_key', '=', 'e.order_key')
              .where('p.state', '=', 'pending')
              .whereRef('p.id', '<', 'e.id'),
          ),
        ),
      ]),
    )
    .orderBy('e.id')
    .limit(limit);
  if (dialect === 'postgres') pick = pick.forUpdate().skipLocked();
  const rows = await db
    .updateTable('push_events')
    .set({ lease_until: leaseUntil, next_attempt_at: leaseUntil })
    .where('id', 'in', pick)
    .returning(['id', 'registration_id', 'payload', 'created_at'])
    .execute();
  return rows
    .map((r) => ({
      id: Number(r.id),
      registrationId: Number(r.registration_id),
      payload: r.payload,
      createdAt: Number(r.created_at),
    }))
    .sort((a, b) => a.id - b.id);
}

const describe = (r: PushResult) => (r.httpStatus !== null ? `HTTP ${r.httpStatus}` : (r.error ?? 'failed'));

/**
 * Records a batch of results in one transaction: the delivery log, delivered events, and per registration
 * the failure rules. A failure counts only when its attempt started after the last counted failure (a
 * round of concurrent failures counts once); it backs the registration off (retry_at), and the
 * `maxFailures`-th disables it (reason and time recorded, its events held). A success resets the count.
 */
export async function recordPushResults(
  db: Queryable,
  results: PushResult[],
  settings: PushSettings,
  now: number,
): Promise<Map<number, RegistrationOutcome>> {
  const dialect = dialectOf(db);
  const outcomes = new Map<number, RegistrationOutcome>();
  await db.transaction().execute(async (trx) => {
    const logged = results.filter((r) => r.kind !== 'released');
    for (const part of chunks(logged)) {
      await trx
        .insertInto('push_attempts')
        .values(
          part.map((r) => ({
            registration_id: r.registrationId,
            event_id: r.eventId,
            at: r.startedAt,
            http_status: r.httpStatus,
            latency_ms: r.latencyMs,
            error: r.error,
          })),
        )
        .execute();
    }
    for (const part of chunks(results.filter((r) => r.kind === 'delivered').map((r) => r.eventId))) {
      await trx
        .updateTable('push_events')
        .set((eb) => ({ state: 'delivered', delivered_at: now, lease_until: null, attempts: eb('attempts', '+', 1) }))
        .where('id', 'in', part)
        .where(unindexed(dialect, 'state'), '=', 'pending')
        .execute();
    }
    const byRegistration = new Map<number, PushResult[]>();
    for (const r of results) byRegistration.set(r.registrationId, [...(byRegistration.get(r.registrationId) ?? []), r]);
    for (const [regId, rs] of byRegistration) {
      const outcome = await applyRegistrationResults(trx, regId, rs, settings, now);
      if (outcome) outcomes.set(regId, outcome);
    }
  });
  return outcomes;
}

async function applyRegistrationResults(
  db: Queryable,
  regId: number,
  rs: PushResult[],
  settings: PushSettings,
  now: number,
): Promise<RegistrationOutcome | undefined> {
  const dialect = dialectOf(db);
  const releaseDeferred = () =>
    db
      .updateTable('push_events')
      .set({ next_attempt_at: now })
      .where('registration_id', '=', regId)
      .where('state', '=', 'pending')
      .where('lease_until', 'is', null)
      .where('next_attempt_at', '>', now)
      .where('next_attempt_at', '<', HELD)
      .execute();
  if (rs.every((r) => r.kind === 'delivered')) {
    const reset = await db
      .updateTable('push_registrations')
      .set({ consecutive_failures: 0, retry_at: 0 })
      .where('id', '=', regId)
      .where('consecutive_failures', '>', 0)
      .executeTakeFirst();
    if (Number(reset.numUpdatedRows) === 0) return undefined;
    await releaseDeferred();
    return { state: 'registered', consecutiveFailures: 0, retryAt: 0 };
  }
  let read = db.selectFrom('push_registrations').selectAll().where('id', '=', regId);
  if (dialect === 'postgres') read = read.forUpdate();
  const reg = await read.executeTakeFirst();
  if (!reg) return undefined;
  let failures = Number(reg.consecutive_failures);
  let lastFailureAt = reg.last_failure_at === null ? -1 : Number(reg.last_failure_at);
  let retryAt = Number(reg.retry_at);
  let counted = false;
  let lastError = '';
  for (const r of [...rs].sort((a, b) => a.finishedAt - b.finishedAt)) {
    if (r.kind === 'delivered') {
      failures = 0;
      retryAt = 0;
    } else if (r.kind === 'failed' && r.startedAt >= lastFailureAt) {
      failures++;
      lastFailureAt = r.finishedAt;
      lastError = describe(r);
      counted = true;
    }
  }
  let state = reg.state;
  const disable = counted && state === 'registered' && failures >= settings.maxFailures;
  if (disable) state = 'disabled';
  else if (counted) retryAt = now + retryDelay(settings, failures);
  await db
    .updateTable('push_registrations')
    .set({
      consecutive_failures: failures,
      retry_at: retryAt,
      last_failure_at: lastFailureAt < 0 ? null : lastFailureAt,
      state,
      ...(disable
        ? { disabled_at: now, disabled_reason: `${failures} consecutive failed deliveries; last: ${lastError}` }
        : {}),
    })
    .where('id', '=', regId)
    .execute();
  const next = state === 'disabled' ? HELD : Math.max(now, retryAt);
  const failed = rs.filter((r) => r.kind === 'failed').map((r) => r.eventId);
  const released = rs.filter((r) => r.kind === 'released').map((r) => r.eventId);
  for (const part of chunks(failed)) {
    await db
      .updateTable('push_events')
      .set((eb) => ({ lease_until: null, next_attempt_at: next, attempts: eb('attempts', '+', 1) }))
      .where('id', 'in', part)
      .where(unindexed(dialect, 'state'), '=', 'pending')
      .execute();
  }
  for (const part of chunks(released)) {
    await db
      .updateTable('push_events')
      .set({ lease_until: null, next_attempt_at: next })
      .where('id', 'in', part)
      .where(unindexed(dialect, 'state'), '=', 'pending')
      .execute();
  }
  if (disable) {
    await db
      .updateTable('push_events')
      .set({ next_attempt_at: HELD, lease_until: null })
      .where('registration_id', '=', regId)
      .where('state', '=', 'pending')
      .execute();
  } else if (counted) {
    await db
      .updateTable('push_events')
      .set({ next_attempt_at: retryAt })
      .where('registration_id', '=', regId)
      .where('state', '=', 'pending')
      .where('next_attempt_at', '<', retryAt)
      .where(notLeased(now))
      .execute();
  } else if (failures === 0 && Number(reg.consecutive_failures) > 0) {
    await releaseDeferred();
  }
  return { state, consecutiveFailures: failures, retryAt };
}

/** Deletes finished events, log rows and deleted registrations older than `before`; returns rows removed. */
export async function prunePushData(db: Queryable, before: number): Promise<number> {
  let removed = 0;
  for (;;) {
    const r = await db
      .deleteFrom('push_events')
      .where(
        'id',
        'in',
        db
          .selectFrom('push_events')
          .select('id')
          .where('created_at', '<', before)
          .where('state', 'in', ['delivered', 'superseded', 'dead'])
          .limit(5000),
      )
      .executeTakeFirst();
    const a = await db
      .deleteFrom('push_attempts')
      .where('id', 'in', db.selectFrom('push_attempts').select('id').where('at', '<', before).limit(5000))
      .executeTakeFirst();
    const n = Number(r.numDeletedRows) + Number(a.numDeletedRows);
    removed += n;
    if (n === 0) break;
  }
  const regs = await db
    .deleteFrom('push_registrations')
    .where('state', '=', 'deleted')
    .where('deleted_at', '<', before)
    .executeTakeFirst();
  return removed + Number(regs.numDeletedRows);
}

/** The push queue as an operator watches it: events not yet delivered, and registrations disabled. */
export async function pushFigures(db: Queryable): Promise<{ backlog: number; disabled: number }> {
  const backlog = await db
    .selectFrom('push_events')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('state', '=', 'pending')
    .executeTakeFirstOrThrow();
  const disabled = await db
    .selectFrom('push_registrations')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('state', '=', 'disabled')
    .executeTakeFirstOrThrow();
  return { backlog: Number(backlog.n), disabled: Number(disabled.n) };
}
