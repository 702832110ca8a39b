// Polling: dlr (reports by external id), dlrByDate / dlrbyDate (reports by date) and incoming (inbound SMS).
//
// Replies: { status 0, message 'N reports' (never empty: <message/> escapes clients' regexes), transactions: [...] } (XML: <transactions><transaction>...). A dlr report
// carries the pushed fields (external_id, status, he_message, en_message, date dd/mm/yy hh:mm:ss, phone 9725...,
// operator and operaor (the carrier), shipment_id); an incoming one { phone, dest, message, date }.
// Windows: `from`/`to` are dd/mm/yy hh:mm in the account's zone, `to` includes its whole minute, at most one
// week apart (all three operations). dlr matches messages accepted or submitted in the window; dlrByDate
// matches reports whose current status dates from the window; incoming matches messages received in it.
// At most 1000 external ids (dlr) and 10,000 rows per reply; `truncated: 1` says more exist (narrow the window).
// Errors are status 2 with a message naming the problem (missing field, bad date, window, too many ids).
import { z } from 'zod';
import { parseShort } from '../domain/dates.ts';
import { ApiError } from '../domain/errors.ts';
import { dlrFields, incomingFields } from '../domain/push-fields.ts';
import { listInbound } from '../store/inbound.ts';
import { reportsByDate, reportsByExternalIds, type ReportRow } from '../store/reports.ts';
import { childTexts, late, lateMissing, shortDate, text, texts } from './fields.ts';
import { int, str } from './replies.ts';
import { defineOperation, type ReplyTo } from './types.ts';

const MINUTE = 60_000;
const WEEK = 7 * 24 * 3600_000;
/** Most external ids one dlr call may ask for. */
export const MAX_EXTERNAL_IDS = 1000;
/** Most rows one reply carries. */
export const MAX_REPORT_ROWS = 10_000;

/** Parses from/to in the account's zone; `to` covers its whole minute; window at most one week. */
export function parseReportWindow(fromText: string, toText: string, timeZone: string): { from: number; to: number } {
  const from = parseShort(fromText, timeZone);
  if (from === null) throw new ApiError(2, `Invalid value for field from: expected dd/mm/yy hh:mm, got "${fromText}"`);
  const toStart = parseShort(toText, timeZone);
  if (toStart === null) throw new ApiError(2, `Invalid value for field to: expected dd/mm/yy hh:mm, got "${toText}"`);
  if (toStart < from) throw new ApiError(2, 'Invalid window: to is before from');
  if (toStart - from > WEEK) throw new ApiError(2, 'Invalid window: from and to may be at most one week apart');
  return { from, to: toStart + MINUTE - 1 };
}

const TRUNCATED = int('1 when more than 10,000 matched').optional();
const REPORT = z.object({
  external_id: str('the id given on `phone` when sending'),
  status: str('delivery status code'),
  he_message: str(),
  en_message: str(),
  date: str('dd/mm/yy hh:mm:ss'),
  phone: str('international digits'),
  operaor: str().optional(),
  operator: str().optional(),
  shipment_id: str(),
  channel: str('`call` for a voice call, `whatsapp` for a WhatsApp message').optional(),
  call_seconds: int('seconds the message played, for an answered call').optional(),
  error_code: str("a failed WhatsApp message: Meta's error code").optional(),
});
const REPORTS_REPLY = z.object({ transactions: z.array(REPORT), truncated: TRUNCATED });
const INCOMING_REPLY = z.object({
  transactions: z.array(
    z.object({
      phone: str().optional(),
      dest: str().optional(),
      message: str().optional(),
      date: str().optional(),
      channel: str('`whatsapp` for a message a WhatsApp user wrote (absent for an SMS)').optional(),
    }),
  ),
  truncated: int().optional(),
});

function reportReply(rows: ReportRow[], timeZone: string): ReplyTo<typeof REPORTS_REPLY> {
  // A voice call's report says it is one, and an answered call how many seconds its message played.
  const transactions = rows.slice(0, MAX_REPORT_ROWS).map((r) => ({
    ...dlrFields({
      externalId: r.external_id,
      status: r.status,
      date: r.status_at,
      phone: r.phone,
      operator: r.carrier,
      shipmentId: r.campaign_id,
      timeZone,
    }),
    // Beside operator/operaor (019's fields, which carry the same name): the carrier said as Yona calls it.
    carrier: r.carrier ?? '',
    ...(r.channel === 'call'
      ? { channel: 'call', ...(r.call_seconds !== null ? { call_seconds: r.call_seconds } : {}) }
      : {}),
    ...(r.channel === 'whatsapp'
      ? { channel: 'whatsapp', ...(r.carrier_error !== null ? { error_code: r.carrier_error } : {}) }
      : {}),
  }));
  const reply: ReplyTo<typeof REPORTS_REPLY> = {
    status: 0,
    message: countMessage(transactions.length, 'delivery report'),
    transactions,
  };
  if (rows.length > MAX_REPORT_ROWS) reply.truncated = 1;
  return reply;
}

// A reply's message: how many items it holds.
function countMessage(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** dlr: reports of messages by the caller's external ids. */
export const dlr = defineOperation({
  names: ['dlr'],
  shapes: { transactions: { external_id: undefined } },
  reply: REPORTS_REPLY,
  input: z
    .object({
      transactions: childTexts(
        'external_id',
        '`{"external_id": [...]}`: the ids given on `phone` when sending, at most 1,000.',
      ),
      external_id: texts('The same ids without `transactions`.'),
      from: text(),
      to: text(),
    })
    .superRefine((input, ctx) => {
      const given = input.transactions.length + input.external_id.length;
      if (given === 0) lateMissing(ctx, 'transactions.external_id');
      else if (given > MAX_EXTERNAL_IDS)
        late(ctx, 2, `Too many external_id values: ${given}, at most ${MAX_EXTERNAL_IDS} per request`);
    }),
  readOnly: true,
  async handler(ctx, input) {
    const ids = [...input.transactions, ...input.external_id];
    const zone = ctx.account.time_zone;
    const { from, to } = parseReportWindow(input.from, input.to, zone);
    return reportReply(await reportsByExternalIds(ctx.db, ctx.account.id, ids, from, to, MAX_REPORT_ROWS + 1), zone);
  },
});

/** dlrByDate (also dlrbyDate): reports whose status dates from the window. */
export const dlrByDate = defineOperation({
  names: ['dlrByDate', 'dlrbyDate'],
  reply: REPORTS_REPLY,
  input: z.object({ from: shortDate('from'), to: shortDate('to') }),
  readOnly: true,
  async handler(ctx, input) {
    const zone = ctx.account.time_zone;
    const { from, to } = parseReportWindow(input.from, input.to, zone);
    return reportReply(await reportsByDate(ctx.db, ctx.account.id, from, to, MAX_REPORT_ROWS + 1), zone);
  },
});

/** incoming: SMS received on the account's numbers. */
export const incoming = defineOperation({
  names: ['incoming'],
  reply: INCOMING_REPLY,
  input: z.object({ from: shortDate('from'), to: shortDate('to') }),
  readOnly: true,
  async handler(ctx, input) {
    const zone = ctx.account.time_zone;
    const { from, to } = parseReportWindow(input.from, input.to, zone);
    const rows = await listInbound(ctx.db, ctx.account.id, from, to, MAX_REPORT_ROWS + 1);
    const transactions = rows.slice(0, MAX_REPORT_ROWS).map((r) => ({
      ...incomingFields({ phone: r.phone, dest: r.dest, message: r.text, date: r.received_at, timeZone: zone }),
      ...(r.channel !== 'sms' ? { channel: r.channel } : {}),
    }));
    const reply: ReplyTo<typeof INCOMING_REPLY> = {
      status: 0,
      message: countMessage(transactions.length, 'incoming message'),
      transactions,
    };
    if (rows.length > MAX_REPORT_ROWS) reply.truncated = 1;
    return reply;
  },
});
