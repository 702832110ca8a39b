// The per-account blocklist. Every entry point that blocks a number (addNumBL, the console, the removal link,
// a removal keyword reply) calls blockNumbers, which owns what a block does: the row (with its `source` and
// `created_at`), a `blacklist` push event per new number in the same transaction, and the pusher's wake-up.
import { CompiledQuery, type Selectable } from 'kysely';
import { runPrepared, type Queryable } from './engine/db.ts';
import { pgArray } from './pg-arrays.ts';
import { inGroupBatch, type GroupBatchKind } from './engine/pg-group-batch.ts';
import type { BlocklistTable } from './schema/audience.ts';
import { recordBlocklistPushes } from './push.ts';

/** A blocked number with its source and time. */
export type BlocklistEntry = Selectable<BlocklistTable>;

/** Where a block came from. */
export type BlockSource = 'api' | 'unsubscribe-link' | 'reply-stop' | 'console' | 'operator';

/** Every block source, for validating operator and console input. */
export const BLOCK_SOURCES: readonly BlockSource[] = ['api', 'unsubscribe-link', 'reply-stop', 'console', 'operator'];

// Bound values per IN list: well under every driver's parameter limit, and plans stay cheap.
const CHUNK = 500;

function chunks<T>(items: T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Blocks these numbers (international form) for the account; numbers already blocked keep their original
 * row. Returns the numbers newly added, in input order without repeats.
 */
export async function addToBlocklist(
  db: Queryable,
  accountId: number,
  phonesE164: string[],
  source: BlockSource,
  now: number,
): Promise<string[]> {
  const added: string[] = [];
  for (const part of chunks([...new Set(phonesE164)])) {
    const rows = await db
      .insertInto('blocklist')
      .values(part.map((phone) => ({ account_id: accountId, phone, source, created_at: now })))
      .onConflict((oc) => oc.columns(['account_id', 'phone']).doNothing())
      .returning('phone')
      .execute();
    const inserted = new Set(rows.map((r) => r.phone));
    for (const phone of part) if (inserted.has(phone)) added.push(phone);
  }
  await recordBlocklistPushes(db, accountId, added, now);
  return added;
}

/** Where a block wakes the pusher: a service's signals, held until the caller's transaction commits. */
export interface BlockSignals {
  notify(topic: 'push'): void;
}

/** One request to block numbers (international form) for an account. */
export interface Block {
  accountId: number;
  phones: string[];
  source: BlockSource;
  now: number;
}

/**
 * Blocks numbers, in the caller's transaction: numbers already blocked keep their row, each new one gets a
 * `blacklist` push event, and the pusher is told when any was new. Returns the numbers newly blocked.
 */
export async function blockNumbers(db: Queryable, signals: BlockSignals, block: Block): Promise<string[]> {
  const added = await addToBlocklist(db, block.accountId, block.phones, block.source, block.now);
  if (added.length) signals.notify('push');
  return added;
}

/**
 * Unblocks these numbers, logging each removal with the caller's reason; returns the numbers that were
 * blocked (and now are not).
 */
export async function removeFromBlocklist(
  db: Queryable,
  accountId: number,
  phonesE164: string[],
  reason: string | null,
  now: number,
): Promise<string[]> {
  const removed: string[] = [];
  for (const part of chunks([...new Set(phonesE164)])) {
    const rows = await db
      .deleteFrom('blocklist')
      .where('account_id', '=', accountId)
      .where('phone', 'in', part)
      .returning(['phone', 'source', 'created_at'])
      .execute();
    if (rows.length === 0) continue;
    await db
      .insertInto('blocklist_removals')
      .values(
        rows.map((r) => ({
          account_id: accountId,
          phone: r.phone,
          reason,
          source: r.source,
          blocked_at: r.created_at,
          removed_at: now,
        })),
      )
      .execute();
    const gone = new Set(rows.map((r) => r.phone));
    for (const phone of part) if (gone.has(phone)) removed.push(phone);
  }
  return removed;
}

/** The subset of these numbers the account has blocked (IN lists of 500 per query). */
export async function blockedAmong(db: Queryable, accountId: number, phonesE164: string[]): Promise<Set<string>> {
  if (phonesE164.length <= GROUP_BATCH_PHONES) {
    const batched = inGroupBatch(db, BLOCKED_IN_GROUP, { accountId, phones: phonesE164 });
    if (batched) return batched;
  }
  const blocked = new Set<string>();
  // One number (a send to one phone, the common case) is a prepared lookup; building the query cost more.
  if (phonesE164.length === 1) {
    if (await isBlocked(db, accountId, phonesE164[0])) blocked.add(phonesE164[0]);
    return blocked;
  }
  for (const part of chunks([...new Set(phonesE164)])) {
    const rows = await db
      .selectFrom('blocklist')
      .select('phone')
      .where('account_id', '=', accountId)
      .where('phone', 'in', part)
      .execute();
    for (const r of rows) blocked.add(r.phone);
  }
  return blocked;
}

// A PostgreSQL send group's look-ups (pg-group-batch.ts), for sends of up to this many phones: one statement
// for the phones of all its sends.
const GROUP_BATCH_PHONES = 100;
const BLOCKED_IN_GROUP_SQL =
  'select q.r, q.p from unnest($1::int[], $2::bigint[], $3::text[]) as q(r, a, p) ' +
  'join blocklist b on b.account_id = q.a and b.phone = q.p';

const BLOCKED_IN_GROUP: GroupBatchKind<{ accountId: number; phones: string[] }, Set<string>> = {
  writes: false,
  async run(db, requests) {
    const r: number[] = [];
    const a: number[] = [];
    const p: string[] = [];
    requests.forEach((request, i) => {
      for (const phone of request.phones) {
        r.push(i);
        a.push(request.accountId);
        p.push(phone);
      }
    });
    const found = await db.executeQuery<{ r: number; p: string }>(
      CompiledQuery.raw(BLOCKED_IN_GROUP_SQL, [pgArray(r), pgArray(a), pgArray(p)]),
    );
    const sets = requests.map(() => new Set<string>());
    for (const row of found.rows) sets[row.r].add(row.p);
    return sets;
  },
};

function blockedPhoneQuery(db: Queryable) {
  return db.selectFrom('blocklist').select('phone').where('account_id', '=', 0).where('phone', '=', '');
}

/** True when the account has blocked this number (international form); a prepared lookup. */
export async function isBlocked(db: Queryable, accountId: number, phoneE164: string): Promise<boolean> {
  return (await runPrepared(db, blockedPhoneQuery, [accountId, phoneE164])).length > 0;
}

/** Where a page of the blocklist ends: the last entry's time and id (the next page starts after it). */
export interface BlocklistCursor {
  createdAt: number;
  id: number;
}

/** A page of an account's blocklist, newest first: `limit` entries after `before` (from the newest when absent). */
export async function blocklistPage(
  db: Queryable,
  accountId: number,
  limit: number,
  before?: BlocklistCursor,
): Promise<BlocklistEntry[]> {
  let query = db.selectFrom('blocklist').selectAll().where('account_id', '=', accountId);
  if (before) {
    query = query.where((eb) =>
      eb.or([
        eb('created_at', '<', before.createdAt),
        eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)]),
      ]),
    );
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** The account's entries blocked within [from, to] (epoch ms, inclusive), oldest first. */
export async function listBlocklist(
  db: Queryable,
  accountId: number,
  from: number,
  to: number,
): Promise<BlocklistEntry[]> {
  return db
    .selectFrom('blocklist')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('created_at', '>=', from)
    .where('created_at', '<=', to)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}
