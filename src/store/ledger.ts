// The credit ledger: every balance change is a row in the same transaction as its cause.
import { CompiledQuery, sql } from 'kysely';
import { runPrepared, runPreparedWrite } from './engine/hot-queries.ts';
import { pgArray } from './pg-arrays.ts';
import { dialectOf } from './engine/dialect.ts';
import type { Queryable } from './types.ts';

export type Currency = 'credits' | 'international';

const COLUMN: Record<Currency, 'credits' | 'intl_agorot'> = { credits: 'credits', international: 'intl_agorot' };

export interface LedgerChange {
  accountId: number;
  currency: Currency;
  /** Signed: negative debits. */
  amount: number;
  reason: string;
  refType?: string;
  refId?: number;
  now: number;
}

/**
 * Applies a balance change and records it. A debit that would take the balance below zero changes nothing
 * and returns false (the guard is in the UPDATE itself, so concurrent debits cannot overdraw).
 * The entry is written before the balance: on PostgreSQL the UPDATE locks the account row until the commit,
 * so concurrent sends of one account wait for each other over that statement and the commit only.
 */
export async function applyLedgerChange(db: Queryable, change: LedgerChange): Promise<boolean> {
  if (change.amount === 0) return true;
  const deferred = deferredChanges.get(db);
  if (deferred) {
    deferred.record(change);
    return true;
  }
  // Prepared per currency: every send runs this, and building the query cost more than running it.
  const entryId = await recordLedgerEntry(db, change);
  if (await changeBalance(db, change.accountId, change.currency, change.amount)) return true;
  await runPrepared(db, deleteEntryQuery, [entryId]);
  return false;
}

/**
 * A balance change alone, guarded as in applyLedgerChange (false, changing nothing, when a debit would take the
 * balance below zero). The caller records its ledger entry (recordLedgerEntry) in the same transaction.
 */
export async function changeBalance(
  db: Queryable,
  accountId: number,
  currency: Currency,
  amount: number,
): Promise<boolean> {
  if (amount === 0) return true;
  const guard = amount < 0 ? -amount : 0;
  return (await runPreparedWrite(db, UPDATE_BALANCE[currency], [amount, accountId, guard])).changes > 0;
}

/** Writes a ledger entry, for a balance change made in the same transaction; returns its id. */
export async function recordLedgerEntry(db: Queryable, change: LedgerChange): Promise<number | undefined> {
  if (change.amount === 0) return undefined;
  const entry = await runPreparedWrite(db, insertEntryQuery, [
    change.accountId,
    change.currency,
    change.amount,
    change.reason,
    change.refType ?? null,
    change.refId ?? null,
    change.now,
  ]);
  return entry.id;
}

/** Balance changes recorded, not yet applied: their ledger rows and the net change per account and currency. */
export class BalanceChanges {
  private readonly entries: LedgerChange[] = [];
  private readonly net = new Map<string, { accountId: number; currency: Currency; amount: number }>();

  record(change: LedgerChange): void {
    this.entries.push(change);
    const key = `${change.accountId}:${change.currency}`;
    const entry = this.net.get(key);
    if (entry) entry.amount += change.amount;
    else this.net.set(key, { accountId: change.accountId, currency: change.currency, amount: change.amount });
  }

  add(other: BalanceChanges): void {
    for (const change of other.entries) this.record(change);
  }

  /** Whether any change recorded is to this account's balance. */
  touches(accountId: number): boolean {
    return this.entries.some((c) => c.accountId === accountId);
  }

  /** The ledger rows to write. */
  rows(): readonly LedgerChange[] {
    return this.entries;
  }

  /** Nonzero net changes, accounts in id order (so transactions that lock several account rows never deadlock). */
  changes(): Array<{ accountId: number; currency: Currency; amount: number }> {
    return [...this.net.values()]
      .filter((c) => c.amount !== 0)
      .sort((a, b) => a.accountId - b.accountId || a.currency.localeCompare(b.currency));
  }
}

// Transactions whose balance changes are recorded for later (pg-group-commit.ts): their ledger rows and
// balances are written by applyDeferredBalanceChanges.
const deferredChanges = new WeakMap<object, BalanceChanges>();

/** From now on, applyLedgerChange on `db` records its change in `changes` instead of writing it. */
export function deferBalanceChanges(db: Queryable, changes: BalanceChanges): void {
  deferredChanges.set(db, changes);
}

/**
 * Applies recorded balance changes: their ledger rows in one INSERT, then each net change in one guarded UPDATE.
 * Undefined when all applied; as soon as one would take a balance below zero, the id of that account (the caller
 * rolls the transaction back: what ran before it stays applied inside it).
 */
export async function applyDeferredBalanceChanges(db: Queryable, changes: BalanceChanges): Promise<number | undefined> {
  const rows = changes.rows();
  const net = changes.changes();
  const entries = [
    rows.map((c) => c.accountId),
    rows.map((c) => c.currency),
    rows.map((c) => c.amount),
    rows.map((c) => c.reason),
    rows.map((c) => c.refType ?? null),
    rows.map((c) => c.refId ?? null),
    rows.map((c) => c.now),
  ].map(pgArray);
  // One account's change (a group of one account's sends): its rows and its guarded UPDATE in one statement.
  if (net.length === 1) {
    const [c] = net;
    const params = [...entries, c.amount, c.accountId, c.amount < 0 ? -c.amount : 0];
    const updated = await db.executeQuery(CompiledQuery.raw(ENTRIES_WITH_BALANCE_SQL[c.currency], params));
    return updated.rows.length > 0 ? undefined : c.accountId;
  }
  if (rows.length > 0) await db.executeQuery(CompiledQuery.raw(INSERT_ENTRIES_SQL, entries));
  for (const c of net) {
    const updated = await runPreparedWrite(db, UPDATE_BALANCE[c.currency], [
      c.amount,
      c.accountId,
      c.amount < 0 ? -c.amount : 0,
    ]);
    if (updated.changes === 0) return c.accountId;
  }
  return undefined;
}

// Ledger rows from arrays (one statement text whatever their number, so it is prepared once).
const INSERT_ENTRIES_SQL =
  'insert into ledger_entries (account_id, currency, amount, reason, ref_type, ref_id, created_at) ' +
  'select e1, e2, e3, e4, e5, e6, e7 from unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::text[], ' +
  '$6::bigint[], $7::bigint[]) as u(e1, e2, e3, e4, e5, e6, e7)';

// The rows, then one account's guarded change; a row comes back when the balance covered it.
const ENTRIES_WITH_BALANCE_SQL: Record<Currency, string> = {
  credits: entriesWithBalance(COLUMN.credits),
  international: entriesWithBalance(COLUMN.international),
};

function entriesWithBalance(column: 'credits' | 'intl_agorot'): string {
  return (
    `with e as (${INSERT_ENTRIES_SQL}) ` +
    `update accounts set ${column} = ${column} + $8 where id = $9 and ${column} >= $10 returning id`
  );
}

// UPDATE accounts SET column = column + $amount WHERE id = $id AND column >= $guard.
function updateBalanceQuery(column: 'credits' | 'intl_agorot') {
  return (db: Queryable) =>
    db
      .updateTable('accounts')
      .set({ [column]: sql`${sql.ref(column)} + ${0}` })
      .where('id', '=', 0)
      .where(sql.ref(column), '>=', 0);
}

const UPDATE_BALANCE: Record<Currency, ReturnType<typeof updateBalanceQuery>> = {
  credits: updateBalanceQuery(COLUMN.credits),
  international: updateBalanceQuery(COLUMN.international),
};

function insertEntryQuery(db: Queryable) {
  return db.insertInto('ledger_entries').values({
    account_id: 0,
    currency: 'credits',
    amount: 0,
    reason: '',
    ref_type: null,
    ref_id: null,
    created_at: 0,
  });
}

function deleteEntryQuery(db: Queryable) {
  return db.deleteFrom('ledger_entries').where('id', '=', 0);
}

export interface Transfer {
  fromId: number;
  toId: number;
  currency: Currency;
  /** Positive: what moves from `fromId` to `toId`. */
  amount: number;
  /** The reasons written on each side's ledger row. */
  reasons: { from: string; to: string };
  now: number;
}

/**
 * Moves an amount between two accounts as two ledger rows (each referring to the other account); false, with
 * nothing changed, when the giving side has too little. On PostgreSQL both account rows are locked first, in id
 * order, so transfers the opposite way at the same moment queue instead of deadlocking.
 */
export async function transferBetweenAccounts(db: Queryable, t: Transfer): Promise<boolean> {
  const dialect = dialectOf(db);
  if (dialect === 'postgres') {
    await db
      .selectFrom('accounts')
      .select('id')
      .where('id', 'in', [t.fromId, t.toId])
      .orderBy('id')
      .forNoKeyUpdate()
      .execute();
  }
  const debited = await applyLedgerChange(db, {
    accountId: t.fromId,
    currency: t.currency,
    amount: -t.amount,
    reason: t.reasons.from,
    refType: 'account',
    refId: t.toId,
    now: t.now,
  });
  if (!debited) return false;
  await applyLedgerChange(db, {
    accountId: t.toId,
    currency: t.currency,
    amount: t.amount,
    reason: t.reasons.to,
    refType: 'account',
    refId: t.fromId,
    now: t.now,
  });
  return true;
}

export interface LedgerEntry {
  id: number;
  currency: Currency;
  amount: number;
  reason: string;
  ref_type: string | null;
  ref_id: number | null;
  created_at: number;
}

/** A page of an account's ledger, newest first: `limit` entries with ids below `beforeId` (from the newest when absent). */
export async function ledgerPage(
  db: Queryable,
  accountId: number,
  limit: number,
  beforeId?: number,
): Promise<LedgerEntry[]> {
  let query = db
    .selectFrom('ledger_entries')
    .select(['id', 'currency', 'amount', 'reason', 'ref_type', 'ref_id', 'created_at'])
    .where('account_id', '=', accountId);
  if (beforeId !== undefined) query = query.where('id', '<', beforeId);
  const rows = await query.orderBy('id', 'desc').limit(limit).execute();
  return rows.map(toLedgerEntry);
}

/** An account's ledger, oldest first. */
export async function ledgerEntries(db: Queryable, accountId: number): Promise<LedgerEntry[]> {
  const rows = await db
    .selectFrom('ledger_entries')
    .select(['id', 'currency', 'amount', 'reason', 'ref_type', 'ref_id', 'created_at'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
  return rows.map(toLedgerEntry);
}

function toLedgerEntry(r: {
  id: number;
  currency: string;
  amount: number;
  reason: string;
  ref_type: string | null;
  ref_id: number | null;
  created_at: number;
}): LedgerEntry {
  return {
    id: Number(r.id),
    currency: r.currency as Currency,
    amount: Number(r.amount),
    reason: r.reason,
    ref_type: r.ref_type,
    ref_id: r.ref_id === null ? null : Number(r.ref_id),
    created_at: Number(r.created_at),
  };
}
