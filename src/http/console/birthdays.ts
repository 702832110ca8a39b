// Birthday campaigns: the list with their contact list, hour and state; a new one and turning one on or off,
// through the API's new_birthday_campaign and edit_birthday_campaign.
import { editBirthdayCampaign, newBirthdayCampaign, DEFAULT_BIRTHDAY_HOUR } from '../../operations/birthdays.ts';
import { listBirthdayCampaigns, listContactLists, listVerifiedSenders } from '../../store/read-models.ts';
import { actionForm, csrfField, html, table, type HtmlValue, userText } from './html.ts';
import { runOperation } from '../../operations/execute.ts';
import type { ConsoleRouter, PageContext } from './router.ts';

async function birthdaysPage(c: PageContext, o: { error?: string; values?: Record<string, string> } = {}) {
  const { t, account } = c;
  const db = c.app.store.db;
  const [campaigns, lists, senders] = await Promise.all([
    listBirthdayCampaigns(db, account.id),
    listContactLists(db, account.id),
    listVerifiedSenders(db, account.id, false),
  ]);
  const v = o.values ?? {};
  const listName = new Map(lists.map((l) => [Number(l.id), l.name]));
  const rows = campaigns.map((k): HtmlValue[] => [
    userText(k.name),
    listName.get(Number(k.list_id)) ?? k.list_id,
    k.message,
    k.source,
    `${String(k.hour).padStart(2, '0')}:00`,
    k.dob_field,
    k.active ? t.birthdayOn : t.birthdayOff,
    actionForm('/console/birthdays/active', c.session.csrf, k.active ? t.birthdayStop : t.birthdayStart, {
      id: String(k.id),
      active: k.active ? '0' : '1',
    }),
  ]);
  const option = (value: string, label: string, selected: boolean) =>
    html`<option value="${value}"${selected ? html` selected` : ''}>${label}</option>`;
  const form =
    lists.length === 0 || senders.length === 0
      ? html`<p class="warn">${t.birthdayNeeds}</p>`
      : html`<form method="post" action="/console/birthdays" class="card">${csrfField(c.session.csrf)}<h2>${t.birthdayNew}</h2>
<label for="bd-name">${t.name}</label><input id="bd-name" name="name" required maxlength="100" dir="auto" value="${v.name ?? ''}">
<label for="bd-list">${t.contactList}</label><select id="bd-list" name="cl_id">${lists.map((l) => option(String(l.id), l.name, v.cl_id === String(l.id)))}</select>
<label for="bd-message">${t.birthdayMessage}</label><textarea id="bd-message" name="message" required maxlength="1005">${v.message ?? ''}</textarea>
<label for="bd-source">${t.sender}</label><select id="bd-source" name="source">${senders.map((s) => option(s.source, s.source, v.source === s.source))}</select>
<div class="row"><div><label for="bd-hour">${t.birthdayHour}</label><input id="bd-hour" name="hour" type="number" min="0" max="23" required value="${v.hour ?? DEFAULT_BIRTHDAY_HOUR}"></div>
<div><label for="bd-field">${t.birthdayField}</label><select id="bd-field" name="dob_field">${['df1', 'df2', 'df3', 'df4', 'df5', 'df6'].map((f) => option(f, f, (v.dob_field ?? 'df2') === f))}</select></div></div>
<button type="submit">${t.birthdayCreate}</button></form>`;
  return c.render(
    t.navBirthdays,
    html`${table(t.navBirthdays, [t.name, t.contactList, t.birthdayMessage, t.sender, t.birthdayHour, t.birthdayField, t.state, t.actions], rows, t.birthdaysNone)}${form}`,
    { notice: o.error ? { kind: 'error', text: o.error } : undefined },
  );
}

export function registerBirthdays(r: ConsoleRouter): void {
  r.get('/console/birthdays', (c) => birthdaysPage(c));

  r.post('/console/birthdays', async (c) => {
    const values = Object.fromEntries(
      ['name', 'cl_id', 'message', 'source', 'hour', 'dob_field'].map((k) => [k, (c.form.get(k) ?? '').slice(0, 2000)]),
    );
    const reply = await runOperation(c.app, c.account, newBirthdayCampaign, values);
    if (reply.status !== 0) return birthdaysPage(c, { error: String(reply.message), values });
    return c.redirect('/console/birthdays', { ok: 'birthdayCreated' });
  });

  r.post('/console/birthdays/active', async (c) => {
    const reply = await runOperation(c.app, c.account, editBirthdayCampaign, {
      id: c.form.get('id') ?? '',
      active: c.form.get('active') ?? '',
    });
    if (reply.status !== 0) return birthdaysPage(c, { error: String(reply.message) });
    return c.redirect('/console/birthdays', { ok: 'birthdayUpdated' });
  });
}
