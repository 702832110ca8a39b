// The message log's pieces shared by its page, its CSV export and the campaign page: the filters read from the
// query string (status, phone, from, to, campaign, channel; a bad value is named and ignored), the filter form,
// each message's outcome and status in words, and the table rows.
import { fromZoned } from '../../domain/dates.ts';
import { normalizePhone, toNational } from '../../domain/phone.ts';
import { deliveryStatusText } from '../../domain/status.ts';
import {
  REACHED_STATUSES,
  type ChannelFilter,
  type LogCursor,
  type LogRow,
  type MessageFilter,
  type OutcomeFilter,
} from '../../store/read-models.ts';
import { nextDay, readDay, type TypedDay } from './date-input.ts';
import { csvPhone, type CsvValue } from './csv-export.ts';
import { num, when } from './format.ts';
import { html, type Html, type HtmlValue, NO_HTML, userText } from './html.ts';
import { fmt, type Lang, type Messages } from './i18n.ts';

export const FILTER_NAMES = ['status', 'phone', 'from', 'to', 'campaign', 'channel'] as const;
const OUTCOMES: OutcomeFilter[] = ['delivered', 'failed', 'pending', 'blocked'];
const CHANNELS: ChannelFilter[] = ['sms', 'call', 'whatsapp', 'otp'];

export interface ParsedLog {
  filter: MessageFilter;
  /** The filters as given (the form's values and the links' query). */
  values: Partial<Record<(typeof FILTER_NAMES)[number], string>>;
  /** Names of filters whose value was not understood (ignored). */
  bad: string[];
  cursor?: LogCursor;
}

function dayStart(day: TypedDay | undefined, timeZone: string): number | undefined {
  return day && fromZoned({ ...day, hour: 0, minute: 0, second: 0 }, timeZone);
}

/** Reads the log's filters (dates as days in `timeZone`) and its cursor (`before`: `createdAt.id`). */
export function parseLogQuery(query: Record<string, string>, timeZone: string): ParsedLog {
  const out: ParsedLog = { filter: {}, values: {}, bad: [] };
  const f = out.filter;
  for (const name of FILTER_NAMES) {
    const raw = (query[name] ?? '').trim().slice(0, 40);
    if (!raw) continue;
    out.values[name] = raw;
    let ok = true;
    if (name === 'status') {
      if ((OUTCOMES as string[]).includes(raw)) f.status = raw as OutcomeFilter;
      else if (/^-?\d{1,4}$/.test(raw)) f.status = Number(raw);
      else ok = false;
    } else if (name === 'phone') {
      const whole = normalizePhone(raw, { allowInternational: true });
      const digits = raw.replace(/\D/g, '');
      if (whole.ok && digits.length >= 9) f.phoneExact = whole.e164;
      else if (digits.length > 0 && /^[\d\s\-+().]+$/.test(raw)) f.phoneDigits = digits.replace(/^0/, '');
      else ok = false;
    } else if (name === 'from') {
      f.fromMs = dayStart(readDay(raw), timeZone);
      ok = f.fromMs !== undefined;
    } else if (name === 'to') {
      const day = readDay(raw);
      f.toMs = day && dayStart(nextDay(day), timeZone);
      ok = f.toMs !== undefined;
    } else if (name === 'campaign') {
      if (/^\d{1,15}$/.test(raw)) f.campaignId = Number(raw);
      else ok = false;
    } else if (name === 'channel') {
      if ((CHANNELS as string[]).includes(raw)) f.channel = raw as ChannelFilter;
      else ok = false;
    }
    if (!ok) {
      out.bad.push(name);
      delete out.values[name];
    }
  }
  const m = /^(\d{1,15})\.(\d{1,15})$/.exec(query.before ?? '');
  if (m) out.cursor = { createdAt: Number(m[1]), id: Number(m[2]) };
  return out;
}

/** The query string of the filters (with `extra`, e.g. a cursor), '' when there is none. */
export function logQuery(values: ParsedLog['values'], extra: Record<string, string> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v) q.set(k, v);
  for (const [k, v] of Object.entries(extra)) q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** The GET form of the filters; `fixedCampaign`: on a campaign's page, where the campaign is not a filter. */
export function filterForm(t: Messages, action: string, values: ParsedLog['values'], fixedCampaign = false): Html {
  const option = (value: string, label: string, current: string | undefined) =>
    html`<option value="${value}"${current === value ? html` selected` : ''}>${label}</option>`;
  const numericStatus = values.status && !(OUTCOMES as string[]).includes(values.status) ? values.status : '';
  const input = (name: string, label: string, type: string, extra: Html = NO_HTML) =>
    html`<div><label for="f-${name}">${label}</label><input id="f-${name}" name="${name}" type="${type}" value="${values[name as keyof typeof values] ?? ''}"${extra}></div>`;
  const dateExtra = html` inputmode="numeric" maxlength="10" placeholder="${t.dateHint}" autocomplete="off"`;
  return html`<form method="get" action="${action}" class="filters" role="search" aria-label="${t.logFilters}">
<div><label for="f-status">${t.logStatus}</label><select id="f-status" name="status">${option('', t.logStatusAny, values.status)}
${OUTCOMES.map((o) => option(o, t[`logStatus_${o}`], values.status))}${numericStatus ? option(numericStatus, numericStatus, numericStatus) : ''}</select></div>
${input('phone', t.logPhone, 'search', html` inputmode="tel" maxlength="20"`)}
${input('from', `${t.logFrom} (${t.dateHint})`, 'text', dateExtra)}${input('to', `${t.logTo} (${t.dateHint})`, 'text', dateExtra)}
${fixedCampaign ? '' : input('campaign', t.logCampaign, 'text', html` inputmode="numeric" maxlength="15"`)}
<div><label for="f-channel">${t.logChannel}</label><select id="f-channel" name="channel">${option('', t.logChannelAny, values.channel)}
${CHANNELS.map((ch) => option(ch, t[`logChannel_${ch}`], values.channel))}</select></div>
<div class="buttons"><button type="submit">${t.logApply}</button> <a href="${action}">${t.logClear}</a></div></form>`;
}

/** The message's channel as the log names it: a one-time code, a voice call, a WhatsApp message or an SMS. */
export function channelOf(row: Pick<LogRow, 'priority' | 'channel'>): ChannelFilter {
  if (row.priority === 1) return 'otp';
  return row.channel === 'call' || row.channel === 'whatsapp' ? row.channel : 'sms';
}

/** The outcome of a message: delivered, failed, blocked, pending or cancelled. */
export function outcomeOf(row: Pick<LogRow, 'state' | 'status'>): OutcomeFilter | 'cancelled' {
  if (row.state === 'cancelled') return 'cancelled';
  if (row.state === 'skipped') return 'blocked';
  if (row.state === 'failed') return 'failed';
  if (row.state === 'done')
    return row.status !== null && REACHED_STATUSES.includes(row.status) ? 'delivered' : 'failed';
  return 'pending';
}

/** The outcome in words, then the numeric status and its meaning. */
export function statusWords(t: Messages, lang: Lang, row: Pick<LogRow, 'state' | 'status'>): string {
  const outcome = outcomeOf(row);
  const word = outcome === 'cancelled' ? t.cancelledCount : t[`logStatus_${outcome}`];
  if (row.status === null) return word;
  const meaning = deliveryStatusText(row.status);
  return `${word}: ${row.status} ${lang === 'he' ? meaning.he : meaning.en}`;
}

/** A one-time code's text never shows its code: the placeholder and any run of digits are masked. */
export function shownText(row: Pick<LogRow, 'priority' | 'text'>): string {
  return row.priority === 1
    ? row.text.replace(/\[code\]/gi, '••••••').replace(/\d{3,}/g, (d) => '•'.repeat(d.length))
    : row.text;
}

export const LOG_HEADERS = (t: Messages): string[] => [
  t.logTime,
  t.phone,
  t.logSender,
  t.logChannel,
  t.campaign,
  t.logText,
  t.parts,
  t.logCredits,
  t.logStatus,
  t.logCarrier,
  t.logError,
];

/**
 * The text as one line cut to the cell's width (the whole of it in the tooltip), linked to the message's page,
 * where it is shown whole with what happened to the message.
 */
function clippedText(t: Messages, row: LogRow): Html {
  const text = shownText(row);
  return html`<a class="clip" dir="auto" href="/console/messages/${row.id}" title="${text}">${text || fmt(t.msgOpen, { id: row.id })}</a>`;
}

export function logCells(t: Messages, lang: Lang, timeZone: string, row: LogRow): HtmlValue[] {
  return [
    // The day and the time may sit on two lines: the columns after the text keep their room at 1280 px.
    when(row.created_at, timeZone)
      .split(' ')
      .map((part, i) => html`${i > 0 ? ' ' : ''}<span class="nowrap">${part}</span>`),
    html`<span class="nowrap">${toNational(row.phone)}</span>`,
    row.source,
    t[`logChannel_${channelOf(row)}`],
    html`<a href="/console/campaigns/${row.campaign_id}" class="nowrap">${row.campaign_id}${row.campaign_name ? html` · ${userText(row.campaign_name, 'span', html` class="clip" title="${row.campaign_name}"`)}` : ''}</a>`,
    clippedText(t, row),
    html`<span class="num">${num(row.parts)}</span>`,
    html`<span class="num">${num(row.cost_credits)}</span>`,
    html`<span class="status-${outcomeOf(row)}">${statusWords(t, lang, row)}</span>`,
    row.carrier ? html`<span class="carrier">${row.carrier}</span>` : '',
    row.error ? userText(row.error, 'span', html` class="clip" title="${row.error}"`) : '',
  ];
}

/** The CSV columns of a message (the same as the table, with the numbers apart). */
export const CSV_HEADERS = [
  'time',
  'phone',
  'sender',
  'channel',
  'campaign_id',
  'campaign_name',
  'external_id',
  'text',
  'parts',
  'credits',
  'agorot',
  'outcome',
  'status',
  'status_text',
  'status_time',
  'carrier',
  'carrier_error',
];

export function csvValues(timeZone: string, row: LogRow): CsvValue[] {
  return [
    when(row.created_at, timeZone),
    csvPhone(toNational(row.phone)),
    row.source,
    channelOf(row),
    row.campaign_id,
    row.campaign_name,
    row.external_id,
    shownText(row),
    row.parts,
    row.cost_credits,
    row.cost_agorot,
    outcomeOf(row),
    row.status,
    row.status === null ? '' : deliveryStatusText(row.status).en,
    when(row.status_at, timeZone),
    row.carrier,
    row.error,
  ];
}
