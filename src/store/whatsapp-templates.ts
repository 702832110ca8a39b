// The WhatsApp carriers' templates as their provider lists them, replaced whole at each sync of a carrier.
import type { Selectable } from 'kysely';
import type { Queryable } from './engine/db.ts';
import type { WhatsappTemplateTable } from './schema/whatsapp-sending.ts';

export type WhatsappTemplate = Selectable<WhatsappTemplateTable>;

export type NewWhatsappTemplate = Omit<WhatsappTemplate, 'carrier' | 'business_number' | 'synced_at'>;

/** Replaces the templates of `carrier` with those its provider listed now. */
export async function replaceTemplates(
  db: Queryable,
  carrier: { name: string; businessNumber: string },
  templates: readonly NewWhatsappTemplate[],
  now: number,
): Promise<void> {
  await db.deleteFrom('whatsapp_templates').where('carrier', '=', carrier.name).execute();
  if (templates.length === 0) return;
  await db
    .insertInto('whatsapp_templates')
    .values(
      templates.map((t) => ({ ...t, carrier: carrier.name, business_number: carrier.businessNumber, synced_at: now })),
    )
    .execute();
}

/** Removes every template of `carrier` (a carrier that no longer sends). */
export async function removeTemplates(db: Queryable, carrier: string): Promise<void> {
  await db.deleteFrom('whatsapp_templates').where('carrier', '=', carrier).execute();
}

/**
 * The templates a business number may send: its carrier's (`carrier`, when the grant names one), else those of
 * every carrier sending from it or from any number; by name then language.
 */
export async function templatesOfNumber(
  db: Queryable,
  businessNumber: string,
  carrier?: string | null,
): Promise<WhatsappTemplate[]> {
  let q = db.selectFrom('whatsapp_templates').selectAll();
  q = carrier ? q.where('carrier', '=', carrier) : q.where('business_number', 'in', [businessNumber, '*']);
  return q.orderBy('name').orderBy('language').execute();
}

/** When `carrier`'s templates were last synced (undefined: never, or it has none). */
export async function templatesSyncedAt(db: Queryable, carrier: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('whatsapp_templates')
    .select((eb) => eb.fn.max('synced_at').as('at'))
    .where('carrier', '=', carrier)
    .executeTakeFirst();
  return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
}
