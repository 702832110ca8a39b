// WhatsApp's rate card: credits per message category, as the operator sets them.
import type { RateCard, WhatsappCategory } from '../domain/whatsapp-pricing.ts';
import type { Queryable } from './engine/db.ts';

/** Sets (or replaces) the price of a category. */
export async function setWhatsappPrice(
  db: Queryable,
  category: WhatsappCategory,
  credits: number,
  now: number,
): Promise<void> {
  await db
    .insertInto('whatsapp_prices')
    .values({ category, credits, updated_at: now })
    .onConflict((oc) => oc.column('category').doUpdateSet({ credits, updated_at: now }))
    .execute();
}

/** Removes a category's price (it costs the default again). */
export async function removeWhatsappPrice(db: Queryable, category: WhatsappCategory): Promise<boolean> {
  const r = await db.deleteFrom('whatsapp_prices').where('category', '=', category).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** The rate card as set. */
export async function whatsappRateCard(db: Queryable): Promise<RateCard> {
  const rows = await db.selectFrom('whatsapp_prices').select(['category', 'credits']).execute();
  const card: Partial<Record<WhatsappCategory, number>> = {};
  for (const r of rows) card[r.category as WhatsappCategory] = Number(r.credits);
  return card;
}
