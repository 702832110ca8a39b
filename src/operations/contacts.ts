// Contact lists: newCL, removeCL, addNumCL, rmNumCL, getCL, getCLbyID. Lists are tenant-scoped: another
// account's list answers 988 exactly like a list that never existed.
//
// Replies (documented extensions where the spec says "not shown"):
//   newCL     { status 0, message, id (first new list), lists: [{ id, name, contacts, rejected }], errors }
//   addNumCL  { status 0, message, id, added, contacts (list size after), errors }
//   rmNumCL   { status 0, message, id, removed, contacts, errors }
//   removeCL  { status 0, message, ids }   (`cl.id` repeatable; all must exist, else 988 and nothing removed)
//   getCL     { status 0, message, lists: [{ id, name, contacts, date (dd/mm/yy hh:mm) }] }
//   getCLbyID { status 0, message, id, name, date, total, page, page_size, pages, contacts: [{ phone, df1..df6 }],
//             next_after (when the page is full) }
//             `page` (from 1) and `page_size` (default 1000, at most 10000) sit beside `cl`; `after` (a page's
//             `next_after`) asks for the page that follows it instead of a page number (keyset: deep pages of
//             a large list cost no more than the first; the reply then carries no `page`).
//   errors:   [{ list, list_id, row, phone, reason }], row counting from 1 in the request's order;
//             reason: missing_phone | too_short | too_long | invalid | duplicate | not_in_list (rmNumCL).
import { z } from 'zod';
import { formatShort } from '../domain/dates.ts';
import { ApiError } from '../domain/errors.ts';
import { normalizePhone, toNational } from '../domain/phone.ts';
import { DYNAMIC_FIELDS } from '../domain/templates.ts';
import {
  countContacts,
  createContactList,
  deleteContactList,
  findContactList,
  insertContacts,
  listContactLists,
  pageContacts,
  removeContacts,
  type ContactList,
  type NewContact,
} from '../store/contacts.ts';
import { asList, lateMissing, lenient, optInt, text, textOf } from './fields.ts';
import { DATE, int, str } from './replies.ts';
import { defineOperation, type OperationContext, type Shape } from './types.ts';

/** A destination row that did not make it into (or out of) a list. */
export interface RowError {
  list: string;
  list_id: number;
  row: number;
  phone: string;
  reason: string;
}

interface RowInput {
  row: number;
  phone: string;
  contact: NewContact | undefined;
  reason?: string;
}

const DESTINATIONS =
  '`{"destination": [{"phone": "0521234567", "df1": "..."}, ...]}`: contacts with up to six fields df1..df6.';
const LIST_ID = '`{"id": ...}`: the list.';

/** getCLbyID page size when none is given, and the largest accepted (larger asks are capped). */
export const DEFAULT_PAGE_SIZE = 1000;
export const MAX_PAGE_SIZE = 10_000;

const present = (v: unknown) => {
  const list = asList(v);
  return list.length ? list : undefined;
};

// `destinations.destination[]` (also bare `destinations.phone[]`), each phone normalized; df values trimmed.
function readRows(destinations: unknown): RowInput[] {
  const items = asList(destinations).flatMap((d) => {
    if (d === null || typeof d !== 'object') return [];
    const holder = d as Record<string, unknown>;
    return [...asList(holder.destination), ...asList(holder.phone).map((phone) => ({ phone }))];
  });
  return items.map((item, i) => {
    const fields = item !== null && typeof item === 'object' ? (item as Record<string, unknown>) : { phone: item };
    const phone = textOf(fields.phone)?.trim() ?? '';
    if (phone === '') return { row: i + 1, phone, contact: undefined, reason: 'missing_phone' };
    const normalized = normalizePhone(phone, { allowInternational: true });
    if (!normalized.ok) return { row: i + 1, phone, contact: undefined, reason: normalized.reason };
    const contact: NewContact = {
      phone: normalized.e164,
      df1: null,
      df2: null,
      df3: null,
      df4: null,
      df5: null,
      df6: null,
    };
    for (const df of DYNAMIC_FIELDS) {
      const value = textOf(fields[df])?.trim();
      contact[df] = value === undefined || value === '' ? null : value;
    }
    return { row: i + 1, phone, contact };
  });
}

// Inserts the valid rows; every other row (bad phone, repeated, already in the list) becomes an error.
async function addRows(
  ctx: OperationContext,
  list: Pick<ContactList, 'id' | 'name'>,
  rows: RowInput[],
): Promise<{ added: number; errors: RowError[] }> {
  const error = (r: RowInput, reason: string): RowError => ({
    list: list.name,
    list_id: list.id,
    row: r.row,
    phone: r.phone,
    reason,
  });
  const errors: RowError[] = [];
  const seen = new Set<string>();
  const candidates: RowInput[] = [];
  for (const r of rows) {
    if (!r.contact) errors.push(error(r, r.reason ?? 'invalid'));
    else if (seen.has(r.contact.phone)) errors.push(error(r, 'duplicate'));
    else {
      seen.add(r.contact.phone);
      candidates.push(r);
    }
  }
  const added = new Set(
    await insertContacts(
      ctx.db,
      list.id,
      candidates.map((r) => r.contact!),
      ctx.now,
    ),
  );
  for (const r of candidates) if (!added.has(r.contact!.phone)) errors.push(error(r, 'duplicate'));
  errors.sort((a, b) => a.row - b.row);
  return { added: added.size, errors };
}

function toListId(text: string | undefined): number | undefined {
  const t = text?.trim() ?? '';
  return /^\d{1,15}$/.test(t) ? Number(t) : undefined;
}

/** `cl` as given: the texts of its `id` elements, and the rows of the first one's `destinations`, if any. */
interface ListRef {
  ids: Array<string | undefined>;
  nestedRows: RowInput[] | undefined;
}

// `cl` (repeatable) with its `id`s; a client may nest the rows inside `cl` next to `id`.
// Status 2 when no id is given, or (`firstGiven`, where the first names the list) the first is blank.
const listRef = (description: string, firstGiven = true) =>
  lenient((cl, ctx): ListRef => {
    const first = asList(cl)[0];
    const ids = asList(cl)
      .flatMap((c) => (c !== null && typeof c === 'object' ? asList((c as Record<string, unknown>).id) : []))
      .map((id) => textOf(id));
    if (ids.length === 0 || (firstGiven && ids[0]?.trim() === '')) lateMissing(ctx, 'cl.id');
    return {
      ids,
      nestedRows: contactRowsOf(
        first !== null && typeof first === 'object' ? (first as Record<string, unknown>).destinations : undefined,
      ),
    };
  }, description);

const contactRowsOf = (value: unknown) => (value === undefined || value === null ? undefined : readRows(value));
const contactRows = () => lenient(contactRowsOf, DESTINATIONS);

// The list named by `cl.id` (given: `listRef` checks it), 988 when unknown or another account's.
async function requireList(ctx: OperationContext, cl: ListRef): Promise<ContactList> {
  const first = cl.ids[0];
  const id = toListId(first);
  const list = id === undefined ? undefined : await findContactList(ctx.db, ctx.account.id, id);
  if (!list) throw new ApiError(988, `Contact list does not exist: ${first}`);
  return list;
}

const ROW_ERROR = z.object({
  list: str(),
  list_id: int(),
  row: int('row of the request, from 1'),
  phone: str(),
  reason: str('missing_phone, too_short, too_long, invalid, duplicate or not_in_list'),
});
const LIST_SUMMARY = z.object({
  id: int(),
  name: str(),
  contacts: int('contacts in the list'),
  rejected: int().optional(),
});

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

// The shapes of the fields read by hand (a list's `cl`, its `destinations`), for the field-name check.
const LIST_DESTINATIONS: Shape = {
  destination: {
    phone: undefined,
    df1: undefined,
    df2: undefined,
    df3: undefined,
    df4: undefined,
    df5: undefined,
    df6: undefined,
  },
  phone: undefined,
};
const LIST_ID_SHAPE: Shape = { id: undefined };

/** newCL: creates one or more lists; bad rows are reported, not fatal. */
export const newCL = defineOperation({
  names: ['newCL'],
  shapes: { cl: { name: undefined, destinations: LIST_DESTINATIONS } },
  reply: z.object({ id: int('the first new list'), lists: z.array(LIST_SUMMARY), errors: z.array(ROW_ERROR) }),
  input: z.object({
    cl: z.preprocess(present, z.array(z.object({ name: text(), destinations: contactRows() }))),
  }),
  async handler(ctx, input) {
    const lists: { id: number; name: string; contacts: number; rejected: number }[] = [];
    const errors: RowError[] = [];
    for (const cl of input.cl) {
      const id = await createContactList(ctx.db, ctx.account.id, cl.name, ctx.now);
      const result = await addRows(ctx, { id, name: cl.name }, cl.destinations ?? []);
      lists.push({ id, name: cl.name, contacts: result.added, rejected: result.errors.length });
      errors.push(...result.errors);
    }
    const message =
      `${plural(lists.length, 'contact list')} created` +
      (errors.length ? `; ${plural(errors.length, 'row')} rejected` : '');
    return { status: 0, message, id: lists[0].id, lists, errors };
  },
});

/** removeCL: deletes lists with their contacts (all named lists, or none). */
export const removeCL = defineOperation({
  names: ['removeCL'],
  shapes: { cl: LIST_ID_SHAPE },
  reply: z.object({ ids: z.array(int()) }),
  input: z.object({ cl: listRef('`{"id": ...}`, repeatable: the lists to delete.', false) }),
  async handler(ctx, input) {
    const raw = input.cl.ids;
    const ids: number[] = [];
    for (const value of raw) {
      const id = toListId(value);
      if (id === undefined || !(await findContactList(ctx.db, ctx.account.id, id))) {
        throw new ApiError(988, `Contact list does not exist: ${value ?? ''}`);
      }
      if (!ids.includes(id)) ids.push(id);
    }
    for (const id of ids) await deleteContactList(ctx.db, ctx.account.id, id);
    return { status: 0, message: `${plural(ids.length, 'contact list')} removed`, ids };
  },
});

/** addNumCL: adds contacts to a list; duplicates are reported, not added. */
export const addNumCL = defineOperation({
  names: ['addNumCL'],
  shapes: { cl: LIST_ID_SHAPE, destinations: LIST_DESTINATIONS },
  reply: z.object({
    id: int(),
    added: int(),
    contacts: int('contacts in the list now'),
    errors: z.array(ROW_ERROR),
  }),
  input: z.object({ cl: listRef(LIST_ID), destinations: contactRows() }),
  async handler(ctx, input) {
    const list = await requireList(ctx, input.cl);
    const { added, errors } = await addRows(ctx, list, input.destinations ?? input.cl.nestedRows ?? []);
    const contacts = await countContacts(ctx.db, list.id);
    const message = `${plural(added, 'number')} added${errors.length ? `; ${plural(errors.length, 'row')} rejected` : ''}`;
    return { status: 0, message, id: list.id, added, contacts, errors };
  },
});

/** rmNumCL: removes numbers from a list. */
export const rmNumCL = defineOperation({
  names: ['rmNumCL'],
  shapes: { cl: LIST_ID_SHAPE, destinations: LIST_DESTINATIONS },
  reply: z.object({
    id: int(),
    removed: int(),
    contacts: int('contacts in the list now'),
    errors: z.array(ROW_ERROR),
  }),
  input: z.object({ cl: listRef(LIST_ID), destinations: contactRows() }),
  async handler(ctx, input) {
    const list = await requireList(ctx, input.cl);
    const rows = input.destinations ?? input.cl.nestedRows ?? [];
    const error = (r: RowInput, reason: string): RowError => ({
      list: list.name,
      list_id: list.id,
      row: r.row,
      phone: r.phone,
      reason,
    });
    const errors = rows.filter((r) => !r.contact).map((r) => error(r, r.reason ?? 'invalid'));
    const valid = rows.filter((r) => r.contact);
    const removed = new Set(
      await removeContacts(
        ctx.db,
        list.id,
        valid.map((r) => r.contact!.phone),
        ctx.now,
      ),
    );
    const counted = new Set<string>();
    for (const r of valid) {
      // A number named twice is removed once; only a number that was never there is an error.
      if (!removed.has(r.contact!.phone) && !counted.has(r.contact!.phone)) errors.push(error(r, 'not_in_list'));
      counted.add(r.contact!.phone);
    }
    errors.sort((a, b) => a.row - b.row);
    const contacts = await countContacts(ctx.db, list.id);
    const message = `${plural(removed.size, 'number')} removed${errors.length ? `; ${plural(errors.length, 'row')} rejected` : ''}`;
    return { status: 0, message, id: list.id, removed: removed.size, contacts, errors };
  },
});

/** getCL: the account's lists with their sizes. */
export const getCL = defineOperation({
  names: ['getCL'],
  reply: z.object({ lists: z.array(z.object({ id: int(), name: str(), contacts: int(), date: str(DATE) })) }),
  input: z.object({}),
  readOnly: true,
  async handler(ctx) {
    const lists = (await listContactLists(ctx.db, ctx.account.id)).map((l) => ({
      id: l.id,
      name: l.name,
      contacts: Number(l.contact_count),
      date: formatShort(l.created_at, ctx.account.time_zone),
    }));
    return { status: 0, message: `${plural(lists.length, 'contact list')}`, lists };
  },
});

/** getCLbyID: one page of a list's contacts. */
export const getCLbyID = defineOperation({
  names: ['getCLbyID'],
  shapes: { cl: LIST_ID_SHAPE },
  reply: z.object({
    id: int(),
    name: str(),
    date: str(DATE),
    total: int(),
    page: int().optional(),
    page_size: int(),
    pages: int(),
    contacts: z.array(z.object({ phone: str() }).catchall(z.string())).describe('phone and df1..df6'),
    next_after: int('pass as `after` for the next page').optional(),
  }),
  input: z.object({ cl: listRef(LIST_ID), page: optInt(), page_size: optInt(), after: optInt() }),
  readOnly: true,
  async handler(ctx, input) {
    const list = await requireList(ctx, input.cl);
    const page = input.page ?? 1;
    const pageSize = Math.min(input.page_size ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
    if (page < 1) throw new ApiError(2, 'Invalid value for field page: must be 1 or more');
    if (pageSize < 1) throw new ApiError(2, 'Invalid value for field page_size: must be 1 or more');
    if (input.after !== undefined && input.after < 0)
      throw new ApiError(2, 'Invalid value for field after: must be 0 or more');
    const total = Number(list.contact_count);
    const from = input.after !== undefined ? { after: input.after } : { offset: (page - 1) * pageSize };
    const rows = await pageContacts(ctx.db, list.id, from, pageSize);
    const contacts = rows.map((c) => ({
      phone: toNational(c.phone),
      df1: c.df1 ?? '',
      df2: c.df2 ?? '',
      df3: c.df3 ?? '',
      df4: c.df4 ?? '',
      df5: c.df5 ?? '',
      df6: c.df6 ?? '',
    }));
    return {
      status: 0,
      message: `${plural(total, 'contact')}`,
      id: list.id,
      name: list.name,
      date: formatShort(list.created_at, ctx.account.time_zone),
      total,
      ...(input.after === undefined ? { page } : {}),
      page_size: pageSize,
      pages: Math.ceil(total / pageSize),
      contacts,
      ...(rows.length === pageSize ? { next_after: Number(rows[rows.length - 1].id) } : {}),
    };
  },
});
