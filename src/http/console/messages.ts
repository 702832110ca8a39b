// The message log at /console/messages: every message of the account, newest first, 50 a page by keyset, with
// filters in the query string (a view can be bookmarked and shared), and the same view as a streamed CSV at
// /console/messages.csv.
import { messageLogAll, messageLogPage, type LogRow } from '../../store/read-models.ts';
import { sendCsv } from './csv-export.ts';
import { html, table, type Html } from './html.ts';
import { fmt } from './i18n.ts';
import {
  CSV_HEADERS,
  csvValues,
  filterForm,
  LOG_HEADERS,
  logCells,
  logQuery,
  parseLogQuery,
  type ParsedLog,
} from './message-log.ts';
import type { ConsoleRouter, PageContext } from './router.ts';

export const LOG_PAGE_SIZE = 50;

/**
 * The log's table of `rows` and its pager (`path`: the page the links go to), for the log and a campaign's page.
 */
export function logSection(c: PageContext, parsed: ParsedLog, rows: LogRow[], path: string): Html {
  const { t } = c;
  const tz = c.account.time_zone;
  const filtered = Object.keys(parsed.values).length > 0;
  const last = rows.at(-1);
  const pager = html`<nav class="pager" aria-label="${t.pages}">${parsed.cursor ? html`<a href="${path + logQuery(parsed.values)}">${t.logNewest}</a>` : ''}
${rows.length === LOG_PAGE_SIZE && last ? html`<a href="${path + logQuery(parsed.values, { before: `${last.created_at}.${last.id}` })}">${t.logOlder}</a>` : ''}</nav>`;
  return html`<div class="log">${table(
    t.messages,
    LOG_HEADERS(t),
    rows.map((r) => logCells(t, c.lang, tz, r)),
    filtered ? t.logNone : t.logEmpty,
  )}</div>${pager}`;
}

export function badFiltersNotice(c: PageContext, parsed: ParsedLog): { kind: 'error'; text: string } | undefined {
  return parsed.bad.length ? { kind: 'error', text: fmt(c.t.logBad, { fields: parsed.bad.join(', ') }) } : undefined;
}

async function logPage(c: PageContext) {
  const { t } = c;
  const parsed = parseLogQuery(c.query, c.account.time_zone);
  const rows = await messageLogPage(c.app.store.db, c.account.id, parsed.filter, parsed.cursor, LOG_PAGE_SIZE);
  const body = html`<p class="muted">${t.logIntro}</p>${filterForm(t, '/console/messages', parsed.values)}
<p><a class="button" href="/console/messages.csv${logQuery(parsed.values)}" download>${t.logExport}</a></p>
${logSection(c, parsed, rows, '/console/messages')}`;
  return c.render(t.logTitle, body, { notice: badFiltersNotice(c, parsed) });
}

/** Streams the account's messages matching the query's filters (all of them; the cursor is not used). */
export function sendLogCsv(c: PageContext, filename: string, forced: { campaignId?: number } = {}) {
  const parsed = parseLogQuery(c.query, c.account.time_zone);
  if (parsed.bad.length) {
    return c.reply
      .code(400)
      .header('content-type', 'text/plain; charset=utf-8')
      .send(`${fmt(c.t.logBad, { fields: parsed.bad.join(', ') })}\n`);
  }
  const filter = { ...parsed.filter, ...forced };
  const tz = c.account.time_zone;
  return sendCsv(c.reply, filename, CSV_HEADERS, messageLogAll(c.app.store.db, c.account.id, filter), (r) =>
    csvValues(tz, r),
  );
}

export function registerMessages(r: ConsoleRouter): void {
  r.get('/console/messages', (c) => logPage(c));
  r.get('/console/messages.csv', async (c) => sendLogCsv(c, 'messages.csv'));
}
