// /admin/messages: the message log across accounts, newest first, filtered by account, carrier, outcome, phone
// digits and days; /admin/messages.csv the same rows (at most 100,000).
import { findAccountByUsername, operatorMessagePage, type OperatorMessageFilter } from '../../store/read-models.ts';
import { csvLine } from '../console/csv-export.ts';
import { when } from '../console/format.ts';
import { html, olderNewerPager, table } from '../console/html.ts';
import { dayBound, filterText } from './filters.ts';
import type { AdminContext, AdminRouter } from './router.ts';

const PAGE = 50;
const CSV_MAX = 100_000;
const FIELDS = ['account', 'carrier', 'status', 'phone', 'from', 'to'];

async function filterOf(
  c: AdminContext,
): Promise<{ filter: OperatorMessageFilter | undefined; query: URLSearchParams }> {
  const q = c.query;
  const zone = c.app.config.defaultTimeZone;
  const query = new URLSearchParams();
  for (const k of FIELDS) if (filterText(q[k])) query.set(k, filterText(q[k])!);
  const username = filterText(q.account);
  const account = username ? await findAccountByUsername(c.app.store.db, username) : undefined;
  if (username && !account) return { filter: undefined, query };
  const status = q.status === 'delivered' || q.status === 'failed' || q.status === 'pending' ? q.status : undefined;
  return {
    filter: {
      accountId: account?.id,
      carrier: filterText(q.carrier),
      status,
      phoneDigits: filterText(q.phone)?.replace(/\D/g, '') || undefined,
      fromMs: dayBound(q.from, zone, false),
      toMs: dayBound(q.to, zone, true),
    },
    query,
  };
}

export function registerAdminMessages(r: AdminRouter): void {
  r.get('/admin/messages', async (c) => {
    const { w } = c;
    const zone = c.app.config.defaultTimeZone;
    const { filter, query } = await filterOf(c);
    const cursor = /^(\d{1,15})-(\d{1,15})$/.exec(c.query.before ?? '');
    const rows = filter
      ? await operatorMessagePage(
          c.app.store.db,
          filter,
          cursor ? { createdAt: Number(cursor[1]), id: Number(cursor[2]) } : undefined,
          PAGE + 1,
        )
      : [];
    const shown = rows.slice(0, PAGE);
    const field = (name: string, label: string, type = 'text') =>
      html`<div><label for="f-${name}">${label}</label><input id="f-${name}" name="${name}" type="${type}" maxlength="200" value="${c.query[name] ?? ''}"></div>`;
    const option = (value: string, label: string) =>
      html`<option value="${value}"${c.query.status === value ? html` selected` : ''}>${label}</option>`;
    const form = html`<form method="get" action="/admin/messages" class="card filters">
${field('account', w.account)}${field('carrier', w.carrier)}
<div><label for="f-status">${w.outcome}</label><select id="f-status" name="status">${option('', w.any)}${option('delivered', w.delivered)}${option('failed', w.failedOutcome)}${option('pending', w.pendingOutcome)}</select></div>
${field('phone', w.phone)}${field('from', w.filterFrom, 'date')}${field('to', w.filterTo, 'date')}
<button type="submit">${w.filter}</button></form>
<p><a href="/admin/messages.csv${query.size ? `?${query}` : ''}" download>${w.csv}</a></p>`;
    const list = table(
      w.messagesTitle,
      [w.ledgerWhen, w.account, w.phone, w.sender, w.carrier, w.status, w.text],
      shown.map((m) => [
        when(m.created_at, zone),
        html`<a href="/admin/accounts/${encodeURIComponent(m.username)}">${m.username}</a>`,
        html`<span dir="ltr">${m.phone}</span>`,
        html`<span dir="auto">${m.source}</span>`,
        m.carrier ?? '',
        m.status === null ? m.state : String(m.status),
        html`<span dir="auto">${m.text.slice(0, 80)}</span>`,
      ]),
      w.noMessages,
    );
    const last = shown[shown.length - 1];
    const base = `/admin/messages${query.size ? `?${query}` : ''}`;
    const older = rows.length > PAGE && last ? `${last.created_at}-${last.id}` : undefined;
    const pager = olderNewerPager({ pages: w.pages, newest: w.newest, older: w.older }, base, !!cursor, older);
    return c.render(w.messagesTitle, html`${form}${list}${pager}`);
  });

  r.get('/admin/messages.csv', async (c) => {
    const zone = c.app.config.defaultTimeZone;
    const { filter } = await filterOf(c);
    const rows = filter ? await operatorMessagePage(c.app.store.db, filter, undefined, CSV_MAX) : [];
    let body = `\uFEFF${csvLine(['created_at', 'account', 'phone', 'sender', 'carrier', 'state', 'status', 'text'])}`;
    for (const m of rows)
      body += csvLine([when(m.created_at, zone), m.username, m.phone, m.source, m.carrier, m.state, m.status, m.text]);
    return c.reply
      .code(200)
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="messages.csv"')
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .send(body);
  });
}
