// Contact lists: the lists with their sizes, a list's contacts a page at a time, a new list or more contacts
// from a CSV file (read in the browser with a progress bar, or pasted), each rejected row named with its line
// and reason; delete a list. Every change is the API's own operation (newCL, addNumCL, removeCL).
import { num } from './format.ts';
import { formatLong } from '../../domain/dates.ts';
import { toNational } from '../../domain/phone.ts';
import { addNumCL, newCL, removeCL, type RowError } from '../../operations/contacts.ts';
import { findContactList, listContactLists, pageContacts } from '../../store/read-models.ts';
import { csvDestinations, parseContactsCsv, type CsvRow } from './csv.ts';
import { actionForm, csrfField, html, table, type Html, type HtmlValue } from './html.ts';
import { fmt, type Messages } from './i18n.ts';
import { runOperation } from '../../operations/execute.ts';
import { whole, type ConsoleRouter, type PageContext } from './router.ts';

const CONTACTS_PER_PAGE = 100;
const MAX_CSV_ROWS = 100_000;

function csvFields(c: PageContext, id: string): Html {
  const { t } = c;
  return html`<label for="${id}-file">${t.csvFile}</label>
<input id="${id}-file" type="file" accept=".csv,text/csv,text/plain" data-into="${id}-csv" data-progress="${id}-progress" aria-describedby="${id}-hint">
<progress id="${id}-progress" max="1" value="0" hidden aria-label="${t.csvProgress}"></progress>
<label for="${id}-csv">${t.csvText}</label><textarea id="${id}-csv" name="csv" aria-describedby="${id}-hint"></textarea>
<p id="${id}-hint" class="muted">${t.csvHint}</p>`;
}

function reasonText(t: Messages, reason: string): string {
  const key = `rowReason_${reason}` as keyof Messages;
  return Object.hasOwn(t, key) ? t[key] : reason;
}

/** The outcome of an upload: how many were added, then each rejected row by its line in the file. */
function uploadReport(c: PageContext, rows: CsvRow[], added: number, errors: RowError[]): Html {
  const { t } = c;
  const items = errors
    .slice(0, 500)
    .map(
      (e) =>
        html`<li>${fmt(t.rowError, { line: rows[e.row - 1]?.line ?? e.row, phone: e.phone, reason: reasonText(t, e.reason) })}</li>`,
    );
  const more = errors.length > 500 ? html`<p>${fmt(t.rowErrorsMore, { n: num(errors.length - 500) })}</p>` : '';
  return html`<section class="card" aria-labelledby="upload-report"><h2 id="upload-report">${t.uploadReport}</h2>
<p role="status">${fmt(t.uploadAdded, { added: num(added), rejected: num(errors.length) })}</p>${errors.length ? html`<ul class="errors">${items}</ul>${more}` : ''}</section>`;
}

function readCsv(c: PageContext): { rows: CsvRow[]; error?: string } {
  const { rows } = parseContactsCsv(c.form.get('csv') ?? '');
  if (rows.length === 0) return { rows, error: c.t.csvEmpty };
  if (rows.length > MAX_CSV_ROWS) return { rows, error: fmt(c.t.csvTooMany, { max: MAX_CSV_ROWS }) };
  return { rows };
}

async function listsPage(c: PageContext, o: { error?: string; name?: string } = {}) {
  const { t, account } = c;
  const lists = await listContactLists(c.app.store.db, account.id);
  const rows = lists.map((l): HtmlValue[] => [
    html`<a href="/console/lists/${l.id}" dir="auto">${l.name}</a>`,
    html`<span class="num">${num(l.contact_count)}</span>`,
    formatLong(Number(l.created_at), account.time_zone),
  ]);
  const form = html`<form method="post" action="/console/lists" class="card" data-progress-on-submit="new-progress">${csrfField(c.session.csrf)}
<h2>${t.listNew}</h2><label for="list-name">${t.name}</label><input id="list-name" name="name" required maxlength="100" dir="auto" value="${o.name ?? ''}">
${csvFields(c, 'new')}<button type="submit">${t.listCreate}</button></form>`;
  return c.render(t.navLists, html`${table(t.navLists, [t.name, t.contacts, t.created], rows, t.listsNone)}${form}`, {
    notice: o.error ? { kind: 'error', text: o.error } : undefined,
  });
}

async function listPage(c: PageContext, o: { error?: string; report?: Html } = {}) {
  const { t, account } = c;
  const db = c.app.store.db;
  const id = whole(c.params.id);
  const list = id === undefined ? undefined : await findContactList(db, account.id, id);
  if (!list) return c.render(t.notFound, html`<p>${t.notFoundText}</p>`, { code: 404 });
  const after = whole(c.query.after);
  const contacts = await pageContacts(db, list.id, after === undefined ? { offset: 0 } : { after }, CONTACTS_PER_PAGE);
  const rows = contacts.map((k): HtmlValue[] => [
    toNational(k.phone),
    k.df1 ?? '',
    k.df2 ?? '',
    k.df3 ?? '',
    k.df4 ?? '',
    k.df5 ?? '',
    k.df6 ?? '',
  ]);
  const last = contacts.at(-1);
  const pager = html`<nav class="pager" aria-label="${t.pages}">${after !== undefined ? html`<a href="/console/lists/${list.id}">${t.firstPage}</a>` : ''}
${contacts.length === CONTACTS_PER_PAGE && last ? html`<a href="/console/lists/${list.id}?after=${last.id}">${t.nextPage}</a>` : ''}</nav>`;
  const add = html`<form method="post" action="/console/lists/${list.id}/add" class="card" data-progress-on-submit="add-progress">${csrfField(c.session.csrf)}
<h2>${t.listAdd}</h2>${csvFields(c, 'add')}<button type="submit">${t.add}</button></form>`;
  const remove = actionForm(
    `/console/lists/${list.id}/delete`,
    c.session.csrf,
    t.listDelete,
    {},
    { confirm: fmt(t.listDeleteConfirm, { name: list.name }), danger: true },
  );
  const body = html`${o.report ?? ''}<p>${fmt(t.listSize, { n: num(list.contact_count) })}</p>
${table(list.name, [t.phone, 'df1', 'df2', 'df3', 'df4', 'df5', 'df6'], rows, t.listEmpty)}${pager}${add}${remove}`;
  return c.render(`${t.contactList} · ${list.name}`, body, {
    notice: o.error ? { kind: 'error', text: o.error } : undefined,
  });
}

export function registerLists(r: ConsoleRouter): void {
  r.get('/console/lists', (c) => listsPage(c));
  r.get('/console/lists/:id', (c) => listPage(c));

  r.post('/console/lists', async (c) => {
    const name = (c.form.get('name') ?? '').trim().slice(0, 100);
    if (!name) return listsPage(c, { error: c.t.listNameMissing });
    const csv = (c.form.get('csv') ?? '').trim() ? readCsv(c) : { rows: [] as CsvRow[] };
    if ('error' in csv && csv.error) return listsPage(c, { error: csv.error, name });
    const reply = await runOperation(c.app, c.account, newCL, {
      cl: [{ name, destinations: { destination: csvDestinations(csv.rows) } }],
    });
    if (reply.status !== 0) return listsPage(c, { error: String(reply.message), name });
    const id = Number(reply.id);
    c.params.id = String(id);
    const lists = reply.lists as Array<{ contacts: number }>;
    return listPage(c, { report: uploadReport(c, csv.rows, lists[0].contacts, reply.errors as RowError[]) });
  });

  r.post('/console/lists/:id/add', async (c) => {
    const id = whole(c.params.id);
    if (id === undefined || !(await findContactList(c.app.store.db, c.account.id, id))) return listPage(c);
    const csv = readCsv(c);
    if (csv.error) return listPage(c, { error: csv.error });
    const reply = await runOperation(c.app, c.account, addNumCL, {
      cl: { id: String(id) },
      destinations: { destination: csvDestinations(csv.rows) },
    });
    if (reply.status !== 0) return listPage(c, { error: String(reply.message) });
    return listPage(c, { report: uploadReport(c, csv.rows, Number(reply.added), reply.errors as RowError[]) });
  });

  r.post('/console/lists/:id/delete', async (c) => {
    const id = whole(c.params.id);
    if (id === undefined) return listPage(c);
    const reply = await runOperation(c.app, c.account, removeCL, { cl: { id: String(id) } });
    if (reply.status !== 0) return listPage(c);
    return c.redirect('/console/lists', { ok: 'listDeleted' });
  });
}
