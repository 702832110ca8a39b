// The blocklist: blacklist (list entries blocked in a window), addNumBL (-> 946), rmNumBL (-> 0, or 944).
//
// Replies:
//   blacklist { status 0, message, transactions: [{ phone (masked, 5********), date (dd/mm/yy hh:mm) }] }
//             `from`/`to` are minutes in the account's time zone; `to` includes its whole minute.
//   addNumBL  { status 946, message, added, already_listed }   invalid numbers: 933 + errors, nothing added
//   rmNumBL   { status 0 | 944, message "X numbers deleted, Y numbers not in blacklist", deleted, not_in_blacklist }
//             invalid numbers: 933 + errors, nothing removed. `reason` is optional and kept in the removal log.
import { z } from 'zod';
import { formatShort, parseShort } from '../domain/dates.ts';
import { ApiError, missingField } from '../domain/errors.ts';
import { maskPhone, normalizePhone } from '../domain/phone.ts';
import { statusMessage } from '../domain/status.ts';
import { blockNumbers, listBlocklist, removeFromBlocklist } from '../store/blocklist.ts';
import { childTexts, optText, shortDate, texts } from './fields.ts';
import { DATE, int, str } from './replies.ts';
import { defineOperation } from './types.ts';

const MINUTE = 60_000;

// `phones.phone` (repeatable; a bare `phone` beside it is accepted too), normalized to international form.
function readPhones(phones: string[], bare: string[]): string[] {
  const given = [...phones, ...bare];
  if (given.length === 0) throw missingField('phones.phone');
  const e164: string[] = [];
  const errors: { phone: string; reason: string }[] = [];
  for (const phone of given) {
    const n = normalizePhone(phone, { allowInternational: true });
    if (n.ok) e164.push(n.e164);
    else errors.push({ phone, reason: n.reason });
  }
  if (errors.length) {
    throw new ApiError(933, `${statusMessage(933)}: ${errors.map((e) => e.phone).join(', ')}`, { errors });
  }
  return [...new Set(e164)];
}

/** blacklist: entries blocked within a window, phones masked. */
export const blacklist = defineOperation({
  names: ['blacklist'],
  reply: z.object({ transactions: z.array(z.object({ phone: str('masked'), date: str(DATE) })) }),
  input: z.object({ from: shortDate('from'), to: shortDate('to') }),
  readOnly: true,
  async handler(ctx, input) {
    const zone = ctx.account.time_zone;
    const from = parseShort(input.from, zone)!;
    const to = parseShort(input.to, zone)! + MINUTE - 1;
    const entries = await listBlocklist(ctx.db, ctx.account.id, from, to);
    const transactions = entries.map((e) => ({ phone: maskPhone(e.phone), date: formatShort(e.created_at, zone) }));
    // Never empty: `<message/>` would defeat clients that regex `<message>(.*?)</message>`.
    return {
      status: 0,
      message: `${transactions.length} blocked number${transactions.length === 1 ? '' : 's'}`,
      transactions,
    };
  },
});

/** addNumBL: blocks numbers (source 'api', or 'console' for the console's form); 946 on success. */
export const addNumBL = defineOperation({
  names: ['addNumBL'],
  shapes: { phones: { phone: undefined } },
  reply: z.object({ added: int(), already_listed: int() }),
  successStatuses: [946],
  input: z.object({
    phones: childTexts('phone', 'Holds the numbers to block: `{"phone": ["0521234567", ...]}`.', true),
    phone: texts('Numbers given without `phones` (repeatable).'),
  }),
  async handler(ctx, input) {
    const phones = readPhones(input.phones, input.phone);
    const added = await blockNumbers(ctx.db, ctx.signals, {
      accountId: ctx.account.id,
      phones,
      source: ctx.via === 'console' ? 'console' : 'api',
      now: ctx.now,
    });
    return {
      status: 946,
      message: statusMessage(946),
      added: added.length,
      already_listed: phones.length - added.length,
    };
  },
});

/** rmNumBL: unblocks numbers; 944 when some were not blocked. */
export const rmNumBL = defineOperation({
  names: ['rmNumBL'],
  shapes: { phones: { phone: undefined } },
  reply: z.object({ deleted: int(), not_in_blacklist: int() }),
  successStatuses: [0, 944],
  input: z.object({
    phones: childTexts('phone', 'Holds the numbers to unblock: `{"phone": ["0521234567", ...]}`.', true),
    phone: texts('Numbers given without `phones` (repeatable).'),
    reason: optText(),
  }),
  async handler(ctx, input) {
    const phones = readPhones(input.phones, input.phone);
    const deleted = (await removeFromBlocklist(ctx.db, ctx.account.id, phones, input.reason ?? null, ctx.now)).length;
    const missing = phones.length - deleted;
    return {
      status: missing === 0 ? 0 : 944,
      message: `${deleted} numbers deleted, ${missing} numbers not in blacklist`,
      deleted,
      not_in_blacklist: missing,
    };
  },
});
