// The credit ledger: every balance change is a row in the same transaction as its cause.
import { sql } from 'kysely';
import type { Queryable } from './db.ts';

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
 */
export async function applyLedgerChange(db: Queryable, change: LedgerChange): Promise<boolean> {
  if (change.amount === 0) return true;
  const column = COLUMN[change.currency];
  const res = await db
    .updateTable('accounts')
    .set({ [column]: sql`${sql.ref(column)} + ${change.amount}` })
    .where('id', '=', change.accountId)
    .where(sql.ref(column), '>=', change.amount < 0 ? -change.amount : 0)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) return false;
  await db
    .insertInto('ledger_entries')
    .values({
      account_id: change.accountId,
      currency: change.currency,
      amount: change.amount,
      reason: change.reason,
      ref_type: change.refType ?? null,
      ref_id: change.refId ?? null,
      created_at: change.now,
    })
    .execute();
  return true;
}
