// Resellers: their sub-accounts with balances and campaigns, a new sub-account (the API's addSub) and credit or
// money transfers both ways (updateAmountSub), all through the API's operations: the list is getBlanceSubs, whose
// 511 for an account that is not a reseller shows a 404 here.
import { accountActedFor, runOperation } from '../../operations/execute.ts';
import { addSub, getBlanceSubs, updateAmountSub } from '../../operations/reseller.ts';
import { campaignList } from './campaigns.ts';
import { fmt } from './i18n.ts';
import { csrfField, esc, table, type Html } from './html.ts';
import type { ConsoleRouter, PageContext } from './router.ts';

async function subsPage(
  c: PageContext,
  o: { notice?: { kind: 'ok' | 'error'; text: string }; values?: Record<string, string> } = {},
) {
  const { t } = c;
  const listed = await runOperation(c.app, c.account, getBlanceSubs, {});
  if (listed.status !== 0) return c.render(t.notFound, `<p>${esc(t.notFoundText)}</p>`, { code: 404 });
  const subs = listed.subs as { username: string; name: string; balance: string; international_balance: string }[];
  const v = o.values ?? {};
  const rows = subs.map((s): Html[] => [
    `<a href="/console/subaccounts/${encodeURIComponent(s.username)}/campaigns">${esc(s.username)}</a>`,
    esc(s.name),
    `<span class="num">${esc(s.balance)}</span>`,
    `<span class="num">₪${esc(s.international_balance)}</span>`,
  ]);
  const transfer =
    subs.length === 0
      ? ''
      : `<form method="post" action="/console/subaccounts/transfer" class="card">${csrfField(c.session.csrf)}<h2>${esc(t.subTransfer)}</h2>
<p class="muted">${esc(t.subTransferHint)}</p>
<label for="tr-user">${esc(t.username)}</label><select id="tr-user" name="username">${subs.map((s) => `<option${v.username === s.username ? ' selected' : ''}>${esc(s.username)}</option>`).join('')}</select>
<div class="row"><div><label for="tr-credits">${esc(t.credits)}</label><input id="tr-credits" name="amount" inputmode="numeric" maxlength="15" value="${esc(v.amount ?? '')}"></div>
<div><label for="tr-money">${esc(t.subMoney)}</label><input id="tr-money" name="amount_int" inputmode="decimal" maxlength="15" value="${esc(v.amount_int ?? '')}"></div></div>
<button type="submit">${esc(t.subTransferGo)}</button></form>`;
  const create = `<form method="post" action="/console/subaccounts" class="card">${csrfField(c.session.csrf)}<h2>${esc(t.subNew)}</h2>
<div class="row"><div><label for="sub-name">${esc(t.name)}</label><input id="sub-name" name="name" required maxlength="50" value="${esc(v.name ?? '')}"></div>
<div><label for="sub-username">${esc(t.username)}</label><input id="sub-username" name="new_username" required maxlength="100" autocomplete="off" value="${esc(v.new_username ?? '')}"></div></div>
<div class="row"><div><label for="sub-password">${esc(t.password)}</label><input id="sub-password" name="password" type="password" required autocomplete="new-password" maxlength="200"></div>
<div><label for="sub-source">${esc(t.sender)}</label><input id="sub-source" name="source" required maxlength="20" value="${esc(v.source ?? '')}"></div>
<div><label for="sub-amount">${esc(t.subOpening)}</label><input id="sub-amount" name="opening" inputmode="numeric" required maxlength="15" value="${esc(v.opening ?? '0')}"></div></div>
<button type="submit">${esc(t.subCreate)}</button></form>`;
  return c.render(
    t.navSubs,
    `${table(t.navSubs, [t.username, t.name, t.credits, t.international], rows, t.subsNone)}${transfer}${create}`,
    { notice: o.notice },
  );
}

// A sub-account's campaigns, for its reseller only, as the API lets a reseller act for it (anyone else: 404, as
// for a page that does not exist).
async function subCampaignsPage(c: PageContext) {
  const { t, account } = c;
  const sub = await accountActedFor(c.app, account, c.params.username ?? '');
  if (!sub || sub.id === account.id) return c.render(t.notFound, `<p>${esc(t.notFoundText)}</p>`, { code: 404 });
  const path = `/console/subaccounts/${encodeURIComponent(sub.username)}/campaigns`;
  const title = fmt(t.subCampaigns, { username: sub.username });
  return c.render(
    title,
    `<p><a href="/console/subaccounts">${esc(t.navSubs)}</a></p>${await campaignList(c, sub, path, false)}`,
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
