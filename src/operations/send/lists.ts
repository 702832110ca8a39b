// Contact-list destinations (`cl_id`): each list must be the account's (988); contacts stream in pages and
// merge their dynamic fields into the text when add_dynamic is 1.
import { ApiError } from '../../domain/errors.ts';
import { mergeDynamicFields } from '../../domain/templates.ts';
import { findContactList, streamContacts } from '../../store/contacts.ts';
import type { OperationContext } from '../types.ts';
import { isIsraeliE164, rejection, type NormalisedDestinations } from './destinations.ts';

/** The ids of the named lists, in order without repeats; 988 when one is not the account's. */
export async function resolveLists(ctx: OperationContext, listIds: string[]): Promise<number[]> {
  const ids: number[] = [];
  for (const raw of listIds) {
    const id = /^\d+$/.test(raw) ? Number(raw) : NaN;
    const list = Number.isSafeInteger(id) ? await findContactList(ctx.db, ctx.account.id, id) : undefined;
    if (!list) throw new ApiError(988, `Contact list does not exist: "${raw}"`);
    if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}

/** Adds every contact of the lists as a recipient (repeats of numbers already seen are dropped). */
export async function expandLists(
  ctx: OperationContext,
  listIds: number[],
  opts: { allowInternational: boolean; source: string; text: string; dynamic: boolean; seen: Set<string> },
  out: NormalisedDestinations,
): Promise<void> {
  for (const listId of listIds) {
    for await (const batch of streamContacts(ctx.db, listId)) {
      for (const contact of batch) {
        const international = !isIsraeliE164(contact.phone);
        if (international && !opts.allowInternational) {
          out.rejected.push(rejection(contact.phone, null, 'international_not_allowed'));
          continue;
        }
        if (opts.seen.has(contact.phone)) continue;
        opts.seen.add(contact.phone);
        const text = opts.dynamic ? mergeDynamicFields(opts.text, contact) : opts.text;
        out.accepted.push({ phone: contact.phone, international, externalId: null, source: opts.source, text });
      }
    }
  }
}
