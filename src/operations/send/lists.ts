// Contact-list destinations (`cl_id`): each list must be the account's (988); contacts stream in pages (never a
// whole list in memory) and merge their dynamic fields into the text when add_dynamic is 1.
import { ApiError } from '../../domain/errors.ts';
import { isIsraeliMobile } from '../../domain/phone.ts';
import { mergeDynamicFields } from '../../domain/templates.ts';
import { findContactList, streamContacts } from '../../store/contacts.ts';
import type { OperationContext } from '../types.ts';
import { isIsraeliE164, type Recipient } from './destinations.ts';
import type { Rejections } from './rejections.ts';

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

/**
 * Yields the lists' contacts as recipients, a page at a time. Lists hold landlines and foreign numbers too:
 * landlines are rejected (`not_mobile`), foreign numbers unless the send allows them. `seen` (when given)
 * drops numbers already sent to by this send; without it the caller knows there can be no repeats.
 */
export async function* listRecipients(
  ctx: OperationContext,
  listIds: number[],
  opts: { allowInternational: boolean; source: string; text: string; dynamic: boolean; seen?: Set<string> },
  rejected: Rejections,
): AsyncIterable<Recipient[]> {
  for (const listId of listIds) {
    for await (const page of streamContacts(ctx.db, listId)) {
      const recipients: Recipient[] = [];
      for (const contact of page) {
        const international = !isIsraeliE164(contact.phone);
        if (international && !opts.allowInternational) {
          rejected.add(contact.phone, null, 'international_not_allowed');
          continue;
        }
        if (!international && !isIsraeliMobile(contact.phone)) {
          rejected.add(contact.phone, null, 'not_mobile');
          continue;
        }
        if (opts.seen) {
          if (opts.seen.has(contact.phone)) continue;
          opts.seen.add(contact.phone);
        }
        const text = opts.dynamic ? mergeDynamicFields(opts.text, contact) : opts.text;
        recipients.push({ phone: contact.phone, international, externalId: null, source: opts.source, text });
      }
      yield recipients;
    }
  }
}
