// Resellers: their sub-accounts with balances and campaigns, a new sub-account (the API's addSub) and credit or
// money transfers both ways (updateAmountSub), all through the API's operations: the list is getBlanceSubs, whose
// 511 for an account that is not a reseller shows a 404 here.
import { num, shekels } from './format.ts';
import { accountActedFor, runOperation } from '../../operations/execute.ts';
import { addSub, getBlanceSubs, updateAmountSub } from '../../operations/reseller.ts';
import { campaignList } from './campaigns.ts';
import { subAccountCells } from './subaccount-control.ts';
import { fmt } from './i18n.ts';
import { csrfField, html, table, type HtmlValue } from './html.ts';
import type { ConsoleRouter, PageContext } from './router.ts';

async function subsPage(
  c: PageContext,
  o: { notice?: { kind: 'ok' | 'error'; text: string }; values?: Record<string, string> } = {},
) {
  const { t } = c;
  const listed = await runOperation(c.app, c.account, getBlanceSubs, {});
  if (listed.status !== 0) return c.render(t.notFound, html`<p>${t.notFoundText}</p>`, { code: 404 });
  const subs = listed.subs as { username: string; name: string; balance: string; international_balance: string }[];
  const v = o.values ?? {};
  const extra = await subAccountCells(
    c,
    subs.map((s) => s.username),
  );
  const rows = subs.map((s): HtmlValue[] => [
    html`<a href="/console/subaccounts/${encodeURIComponent(s.username)}/campaigns">${s.username}</a>`,
    s.name,
    html`<span class="num">${num(s.balance)}</span>`,
    html`<span class="num">${shekels(Math.round(Number(s.international_balance) * 100))}</span>`,
    ...(extra.get(s.username) ?? []),
  ]);
  const transfer =
    subs.length === 0
      ? ''
      : html`<form method="post" action="/console/subaccounts/transfer" class="card">${csrfField(c.session.csrf)}<h2>${t.subTransfer}</h2>
<p class="muted">${t.subTransferHint}</p>
<label for="tr-user">${t.username}</label><select id="tr-user" name="username">${subs.map((s) => html`<option${v.username === s.username ? html` selected` : ''}>${s.username}</option>`)}</select>
<div class="row"><div><label for="tr-credits">${t.credits}</label><input id="tr-credits" name="amount" inputmode="numeric" maxlength="15" value="${v.amount ?? ''}"></div>
<div><label for="tr-money">${t.subMoney}</label><input id="tr-money" name="amount_int" inputmode="decimal" maxlength="15" value="${v.amount_int ?? ''}"></div></div>
<button type="submit">${t.subTransferGo}</button></form>`;
  const create = html`<form method="post" action="/console/subaccounts" class="card">${csrfField(c.session.csrf)}<h2>${t.subNew}</h2>
<div class="row"><div><label for="sub-name">${t.name}</label><input id="sub-name" name="name" required maxlength="50" value="${v.name ?? ''}"></div>
<div><label for="sub-username">${t.username}</label><input id="sub-username" name="new_username" required maxlength="100" autocomplete="off" value="${v.new_username ?? ''}"></div></div>
<div class="row"><div><label for="sub-password">${t.password}</label><input id="sub-password" name="password" type="password" required autocomplete="new-password" maxlength="200"></div>
<div><label for="sub-source">${t.sender}</label><input id="sub-source" name="source" required maxlength="20" value="${v.source ?? ''}"></div>
<div><label for="sub-amount">${t.subOpening}</label><input id="sub-amount" name="opening" inputmode="numeric" required maxlength="15" value="${v.opening ?? '0'}"></div></div>
<button type="submit">${t.subCreate}</button></form>`;
  return c.render(
    t.navSubs,
    html`${table(t.navSubs, [t.username, t.name, t.credits, t.international, t.subUsage, t.subState, t.actions], rows, t.subsNone)}${transfer}${create}`,
    { notice: o.notice },
  );
}

// A sub-account's campaigns, for its reseller only, as the API lets a reseller act for it (anyone else: 404, as
// for a page that does not exist).
async function subCampaignsPage(c: PageContext) {
  const { t, account } = c;
  const sub = await accountActedFor(c.app, account, c.params.username ?? '');
  if (!sub || sub.id === account.id) return c.render(t.notFound, html`<p>${t.notFoundText}</p>`, { code: 404 });
  const path = `/console/subaccounts/${encodeURIComponent(sub.username)}/campaigns`;
  const title = fmt(t.subCampaigns, { username: sub.username });
  return c.render(
    title,
    html`<p><a href="/console/subaccounts">${t.navSubs}</a></p>${await campaignList(c, sub, path, false)}`,
  );
}

export function registerSubaccounts(r: ConsoleRouter): void {
  r.get('/console/subaccounts', (c) => subsPage(c));
  r.get('/console/subaccounts/:username/campaigns', (c) => subCampaignsPage(c));

  r.post('/console/subaccounts', async (c) => {
    const values = Object.fromEntries(
      ['name', 'new_username', 'source', 'opening'].map((k) => [k, (c.form.get(k) ?? '').trim().slice(0, 200)]),
    );
    const reply = await runOperation(c.app, c.account, addSub, {
      userDetails: {
        name: values.name,
        username: values.new_username,
        password: c.form.get('password') ?? '',
        source: values.source,
        amount: values.opening || '0',
      },
    });
    return subsPage(c, {
      notice: { kind: reply.status === 0 ? 'ok' : 'error', text: String(reply.message) },
      values: reply.status === 0 ? {} : values,
    });
  });

  r.post('/console/subaccounts/transfer', async (c) => {
    const values = Object.fromEntries(
      ['username', 'amount', 'amount_int'].map((k) => [k, (c.form.get(k) ?? '').trim().slice(0, 20)]),
    );
    const reply = await runOperation(c.app, c.account, updateAmountSub, {
      userDetails: { username: values.username },
      ...(values.amount ? { amount: values.amount } : {}),
      ...(values.amount_int ? { amount_int: values.amount_int } : {}),
    });
    return subsPage(c, {
      notice: { kind: reply.status === 0 ? 'ok' : 'error', text: String(reply.message) },
      values: reply.status === 0 ? {} : values,
    });
  });
}
