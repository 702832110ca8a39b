// /admin/audit: every change an operator made, from the console or the CLI, newest first: when, who, from where,
// which operation on what, the state before and after. Filtered by operator, action, subject and days; the same
// rows as CSV. The log is append-only in the store: nothing here (or anywhere) edits it.
import { auditPage, type AuditEntry, type AuditFilter } from '../../store/read-models.ts';
import { csvLine } from '../console/csv-export.ts';
import { when } from '../console/format.ts';
import { html, olderNewerPager, table } from '../console/html.ts';
import { whole } from '../console/router.ts';
import { dayBound, filterText } from './filters.ts';
import type { AdminContext, AdminRouter } from './router.ts';

const PAGE = 50;
const CSV_MAX = 100_000;

function filterOf(c: AdminContext): { filter: Omit<AuditFilter, 'limit'>; query: URLSearchParams } {
  const zone = c.app.config.defaultTimeZone;
  const q = c.query;
  const query = new URLSearchParams();
  for (const k of ['operator', 'action', 'subject', 'from', 'to'])
    if (filterText(q[k])) query.set(k, filterText(q[k])!);
  return {
    filter: {
      operator: filterText(q.operator),
      action: filterText(q.action),
      subject: filterText(q.subject),
      from: dayBound(q.from, zone, false),
      to: dayBound(q.to, zone, true),
    },
    query,
  };
}

const parsed = (json: string | null): unknown => {
  try {
    return json === null ? null : JSON.parse(json);
  } catch {
    return json;
  }
};

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * A state as the page shows it, one key a line: when both sides are records, only the keys that differ (the CSV
 * keeps both whole).
 */
function stateText(json: string | null, other: string | null): string {
  const v = parsed(json);
  const o = parsed(other);
  if (!isRecord(v)) return v === null ? '' : JSON.stringify(v);
  const keys = Object.keys(v).filter((k) => !isRecord(o) || JSON.stringify(v[k]) !== JSON.stringify(o[k]));
  return keys.map((k) => `${k}: ${JSON.stringify(v[k])}`).join('\n');
}

export function registerAdminAudit(r: AdminRouter): void {
  r.get('/admin/audit', async (c) => {
    const { w } = c;
    const zone = c.app.config.defaultTimeZone;
    const { filter, query } = filterOf(c);
    const before = whole(c.query.before);
    const rows = await auditPage(c.app.store.db, { ...filter, before, limit: PAGE + 1 });
    const shown = rows.slice(0, PAGE);
    const field = (name: string, label: string, type = 'text') =>
      html`<div><label for="f-${name}">${label}</label><input id="f-${name}" name="${name}" type="${type}" maxlength="200" value="${c.query[name] ?? ''}"></div>`;
    const form = html`<form method="get" action="/admin/audit" class="card filters">
${field('operator', w.auditOperator)}${field('action', w.auditAction)}${field('subject', w.auditSubject)}
${field('from', w.filterFrom, 'date')}${field('to', w.filterTo, 'date')}
<button type="submit">${w.filter}</button></form>
<p><a href="/admin/audit.csv${query.size ? `?${query}` : ''}" download>${w.auditCsv}</a></p>`;
    const list = table(
      w.auditTitle,
      [
        w.auditWhen,
        w.auditOperator,
        w.auditVia,
        w.auditAddress,
        w.auditAction,
        w.auditSubject,
        w.auditBefore,
        w.auditAfter,
      ],
      shown.map((e: AuditEntry) => [
        when(e.at, zone),
        e.operator,
        e.via,
        html`<span dir="ltr">${e.address}</span>`,
        e.action,
        html`<span dir="auto">${e.subject}</span>`,
        html`<pre class="state" dir="ltr">${stateText(e.before, e.after)}</pre>`,
        html`<pre class="state" dir="ltr">${stateText(e.after, e.before)}</pre>`,
      ]),
      w.auditEmpty,
    );
    const base = `/admin/audit${query.size ? `?${query}` : ''}`;
    const older = rows.length > PAGE ? String(shown[shown.length - 1].id) : undefined;
    const pager = olderNewerPager(
      { pages: w.pages, newest: w.newest, older: w.older },
      base,
      before !== undefined,
      older,
    );
    return c.render(w.auditTitle, html`${form}${list}${pager}`);
  });

  r.get('/admin/audit.csv', async (c) => {
    const zone = c.app.config.defaultTimeZone;
    const { filter } = filterOf(c);
    const rows = await auditPage(c.app.store.db, { ...filter, limit: CSV_MAX });
    let body = `\uFEFF${csvLine(['at', 'operator', 'via', 'address', 'action', 'subject', 'before', 'after'])}`;
    for (const e of rows)
      body += csvLine([when(e.at, zone), e.operator, e.via, e.address, e.action, e.subject, e.before, e.after]);
    return c.reply
      .code(200)
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="audit.csv"')
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .send(body);
  });
}
