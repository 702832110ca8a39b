// /admin/accounts: every account with its balance, state, reseller and last send, searched by username or name;
// the form that creates one (createAccount, as `yona admin create-account`).
import { formatShekels } from '../../domain/money.ts';
import { createAccount } from '../../operations/account-creation.ts';
import { listAccountsForOperator, type AccountListing } from '../../store/read-models.ts';
import { num, when } from '../console/format.ts';
import { csrfField, html, table } from '../console/html.ts';
import { actAsOperator } from './act.ts';
import { filterText } from './filters.ts';
import type { AdminContext, AdminRouter } from './router.ts';

export function stateWord(c: AdminContext, a: { suspendedAt: number | null; closedAt: number | null }): string {
  return a.closedAt !== null ? c.w.stateClosed : a.suspendedAt !== null ? c.w.stateSuspended : c.w.stateActive;
}

const accountLink = (a: AccountListing) =>
  html`<a href="/admin/accounts/${encodeURIComponent(a.username)}">${a.username}</a>`;

export function registerAdminAccounts(r: AdminRouter): void {
  r.get('/admin/accounts', async (c) => {
    const { w } = c;
    const zone = c.app.config.defaultTimeZone;
    const q = filterText(c.query.q)?.toLowerCase();
    const all = await listAccountsForOperator(c.app.store.db);
    const shown = q ? all.filter((a) => a.username.toLowerCase().includes(q) || a.name.toLowerCase().includes(q)) : all;
    const search = html`<form method="get" action="/admin/accounts" class="card filters" role="search">
<div><label for="q">${w.search}</label><input id="q" name="q" type="search" maxlength="200" placeholder="${w.searchHint}" value="${c.query.q ?? ''}"></div>
<button type="submit">${w.search}</button></form>`;
    const list = table(
      w.accountsTitle,
      [w.username, w.accountName, w.credits, w.international, w.state, w.reseller, w.lastActivity],
      shown
        .slice(0, 500)
        .map((a) => [
          accountLink(a),
          html`<span dir="auto">${a.name}</span>`,
          num(a.credits),
          formatShekels(a.intlAgorot),
          stateWord(c, a),
          a.reseller ?? (a.isReseller ? w.isReseller : ''),
          when(a.lastActivity, zone),
        ]),
      w.noAccounts,
    );
    const create =
      c.operator.role === 'admin'
        ? html`<form method="post" action="/admin/accounts/create" class="card"><h2>${w.createAccount}</h2>${csrfField(c.session.csrf)}
<label for="new-username">${w.username}</label><input id="new-username" name="username" required maxlength="64" autocomplete="off">
<label for="new-name">${w.accountName}</label><input id="new-name" name="name" maxlength="200">
<label for="new-password">${w.newPassword}</label><input id="new-password" name="password" type="password" required maxlength="1000" autocomplete="new-password">
<label for="new-credits">${w.openingCredits}</label><input id="new-credits" name="credits" inputmode="numeric" pattern="[0-9]*" value="0">
<label for="new-parent">${w.parent}</label><input id="new-parent" name="parent" maxlength="64">
<label class="check"><input type="checkbox" name="reseller" value="1"> ${w.isReseller}</label>
<button type="submit">${w.create}</button></form>`
        : '';
    return c.render(w.accountsTitle, html`${search}${list}${create}`);
  });

  r.post('/admin/accounts/create', async (c) => {
    const f = c.form;
    const username = (f.get('username') ?? '').trim();
    const credits = /^\d{1,12}$/.test(f.get('credits') ?? '') ? Number(f.get('credits')) : 0;
    const parent = filterText(f.get('parent') ?? undefined);
    return actAsOperator(
      c,
      createAccount,
      {
        username,
        password: f.get('password') ?? '',
        name: filterText(f.get('name') ?? undefined),
        credits,
        internationalAgorot: 0,
        reseller: f.get('reseller') === '1',
        parent,
        timeZone: c.app.config.defaultTimeZone,
        allowIps: [],
      },
      `/admin/accounts/${encodeURIComponent(username)}`,
    );
  });
}
