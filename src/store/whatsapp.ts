// WhatsApp's own rows: the business numbers the operator granted to accounts (an account sends only from its own;
// a business number belongs to one account, whose inbound messages and windows it carries), and the 24-hour
// customer service windows: each message a user writes to a business number opens (or resets) the window in which
// the business may answer with free text; outside it only an approved template may be sent.
import type { Queryable } from './engine/db.ts';

/** How long a user's message keeps the window open (Meta's customer service window). */
export const WINDOW_MS = 24 * 3600_000;

/** A business number granted to an account. */
export interface WhatsappNumber {
  accountId: number;
  businessNumber: string;
  /** The carrier its messages go through; null: the WhatsApp route chooses. */
  carrier: string | null;
  createdAt: number;
}

const toNumber = (r: {
  account_id: number;
  business_number: string;
  carrier: string | null;
  created_at: number;
}): WhatsappNumber => ({
  accountId: Number(r.account_id),
  businessNumber: r.business_number,
  carrier: r.carrier,
  createdAt: Number(r.created_at),
});

/**
 * Grants a business number to an account (again: changes its carrier). Returns the account that already holds
 * it when that is another one (nothing changed), else null.
 */
export async function grantWhatsappNumber(
  db: Queryable,
  grant: { accountId: number; businessNumber: string; carrier: string | null },
  now: number,
): Promise<{ heldBy: number } | null> {
  const held = await whatsappNumber(db, grant.businessNumber);
  if (held && held.accountId !== grant.accountId) return { heldBy: held.accountId };
  if (held) {
    await db
      .updateTable('whatsapp_numbers')
      .set({ carrier: grant.carrier })
      .where('business_number', '=', grant.businessNumber)
      .execute();
    return null;
  }
  await db
    .insertInto('whatsapp_numbers')
    .values({
      account_id: grant.accountId,
      business_number: grant.businessNumber,
      carrier: grant.carrier,
      created_at: now,
    })
    .execute();
  return null;
}

/** Takes a business number back from an account; returns whether it held it. */
export async function revokeWhatsappNumber(db: Queryable, accountId: number, businessNumber: string): Promise<boolean> {
  const result = await db
    .deleteFrom('whatsapp_numbers')
    .where('account_id', '=', accountId)
    .where('business_number', '=', businessNumber)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The grant of a business number (whichever account holds it), or undefined. */
export async function whatsappNumber(db: Queryable, businessNumber: string): Promise<WhatsappNumber | undefined> {
  const row = await db
    .selectFrom('whatsapp_numbers')
    .select(['account_id', 'business_number', 'carrier', 'created_at'])
    .where('business_number', '=', businessNumber)
    .executeTakeFirst();
  return row ? toNumber(row) : undefined;
}

/** Whether the account may send from this business number. */
export async function mayUseWhatsappNumber(db: Queryable, accountId: number, businessNumber: string): Promise<boolean> {
  return (await whatsappNumber(db, businessNumber))?.accountId === accountId;
}

/** The business numbers granted, to one account or (no account) to every account; by number. */
export async function listWhatsappNumbers(db: Queryable, accountId?: number): Promise<WhatsappNumber[]> {
  let q = db
    .selectFrom('whatsapp_numbers')
    .select(['account_id', 'business_number', 'carrier', 'created_at'])
    .orderBy('business_number');
  if (accountId !== undefined) q = q.where('account_id', '=', accountId);
  return (await q.execute()).map(toNumber);
}

/** A user wrote to a business number at `at`: their window opens, or moves on (never back, for a late repeat). */
export async function openWindow(
  db: Queryable,
  window: { accountId: number; businessNumber: string; user: string },
  at: number,
): Promise<void> {
  await db
    .insertInto('whatsapp_windows')
    .values({
      account_id: window.accountId,
      business_number: window.businessNumber,
      user_id: window.user,
      last_inbound_at: at,
    })
    .onConflict((oc) =>
      oc
        .columns(['account_id', 'business_number', 'user_id'])
        .doUpdateSet({ last_inbound_at: at })
        .where('whatsapp_windows.last_inbound_at', '<', at),
    )
    .execute();
}

/** When the user's window with the business number closes (undefined: they never wrote, or not since it closed). */
export async function windowClosesAt(
  db: Queryable,
  accountId: number,
  businessNumber: string,
  user: string,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('whatsapp_windows')
    .select('last_inbound_at')
    .where('account_id', '=', accountId)
    .where('business_number', '=', businessNumber)
    .where('user_id', '=', user)
    .executeTakeFirst();
  return row ? Number(row.last_inbound_at) + WINDOW_MS : undefined;
}

/** Whether the business may write free text to the user at `at` (the user wrote within the last 24 hours). */
export async function isWindowOpen(
  db: Queryable,
  accountId: number,
  businessNumber: string,
  user: string,
  at: number,
): Promise<boolean> {
  const closes = await windowClosesAt(db, accountId, businessNumber, user);
  return closes !== undefined && at < closes;
}
