// /admin/accounts/NAME: one account as the operator sees it (balance, state, tokens, allowed addresses, settings,
// sub-accounts, its ledger with the operator's name on each of the operator's entries, its latest messages) and
// the forms that change it, each one operation run as the operator (audited): credit or debit with a reason,
// suspend and resume, the console password, tokens, the IP allowlist, password authentication, one-time codes
// abroad and the low-balance warning.
import type { FastifyReply } from 'fastify';
import { formatShekels } from '../../domain/money.ts';
import {
  addAllowedAddress,
  deleteApiToken,
  mintApiToken,
  removeAllowedAddress,
  setAddressCheck,
} from '../../operations/account-access.ts';
import { setConsolePassword, setLowBalanceWarning } from '../../operations/account-security.ts';
import { runOperation } from '../../operations/execute.ts';
import {
  creditAccount,
  resumeAccount,
  setOtpAbroad,
  setPasswordAuthentication,
  suspendAccount,
} from '../../operations/operator-changes.ts';
import type { Account } from '../../store/accounts.ts';
import {
  accountOperatorSettings,
  findAccountByUsername,
  ledgerPage,
  listAccountsForOperator,
  listAllowedIps,
  listTokens,
  messageLogPage,
} from '../../store/read-models.ts';
import { num, when } from '../console/format.ts';
import { actionForm, csrfField, html, type Html, table } from '../console/html.ts';
import { fmt } from '../console/i18n.ts';
import { actOnAccount } from './act.ts';
import { stateWord } from './accounts.ts';
import type { AdminContext, AdminRouter, Notice } from './router.ts';

const pathOf = (a: Account) => `/admin/accounts/${encodeURIComponent(a.username)}`;

async function target(c: AdminContext): Promise<Account | undefined> {
  return findAccountByUsername(c.app.store.db, c.params.name ?? '');
}

function notFound(c: AdminContext): FastifyReply {
  return c.render(c.w.notFound, html`<p>${c.w.notFoundText}</p>`, { code: 404 });
}

async function accountPage(c: AdminContext, a: Account, notice?: Notice): Promise<FastifyReply> {
  const { w } = c;
  const db = c.app.store.db;
  const zone = c.app.config.defaultTimeZone;
  const path = pathOf(a);
  const admin = c.operator.role === 'admin';
  const csrf = csrfField(c.session.csrf);
  const form = (action: string, title: string, inner: Html) =>
    admin
      ? html`<form method="post" action="${path}/${action}" class="card"><h2>${title}</h2>${csrf}${inner}</form>`
      : '';
  const listing = (await listAccountsForOperator(db)).find((x) => x.id === a.id);
  const summary = html`<dl class="card facts">
<dt>${w.credits}</dt><dd>${num(a.credits)}</dd>
<dt>${w.international}</dt><dd>${formatShekels(Number(a.intl_agorot))}</dd>
<dt>${w.state}</dt><dd>${stateWord(c, { suspendedAt: a.suspended_at, closedAt: a.closed_at })}${
    a.suspended_at !== null
      ? html` · ${fmt(w.suspendedBecause, { by: a.suspended_by ?? 'reseller', reason: listing?.suspensionReason ?? '' })}`
      : ''
  }</dd>
<dt>${w.ipCheck}</dt><dd>${a.ip_check ? w.on : w.off}</dd>
</dl>`;
  const credit = form(
    'credit',
    w.creditTitle,
    html`<label for="amount">${w.amount}</label><input id="amount" name="amount" required inputmode="numeric" pattern="-?[0-9]+" maxlength="14">
<label for="credit-reason">${w.reason}</label><input id="credit-reason" name="reason" required maxlength="500">
<button type="submit">${w.apply}</button>`,
  );
  const suspension = admin
    ? a.suspended_at === null
      ? form(
          'suspend',
          w.suspendTitle,
          html`<p>${w.suspendHint}</p><label for="suspend-reason">${w.reason}</label><input id="suspend-reason" name="reason" maxlength="500">
<button type="submit" class="danger">${w.suspend}</button>`,
        )
      : form('resume', w.suspendTitle, html`<button type="submit">${w.resume}</button>`)
    : '';
  const password = form(
    'password',
    w.resetPassword,
    html`<label for="reset-password">${w.newPassword}</label><input id="reset-password" name="password" type="password" required maxlength="1000" autocomplete="new-password">
<button type="submit">${w.setPassword}</button>`,
  );
  const tokens = await listTokens(db, a.id);
  const tokenTable = table(
    w.tokens,
    [w.tokenName, w.tokenExpires, ''],
    tokens.map((t) => [
      t.name,
      when(t.expires_at, zone),
      admin
        ? actionForm(`${path}/token/delete`, c.session.csrf, w.deleteToken, { name: t.name }, { danger: true })
        : '',
    ]),
    w.noTokens,
  );
  const ips = await listAllowedIps(db, a.id);
  const ipTable = table(
    w.ips,
    [w.cidr, ''],
    ips.map((ip) => [
      html`<span dir="ltr">${ip}</span>`,
      admin ? actionForm(`${path}/ip/remove`, c.session.csrf, w.removeIp, { cidr: ip }) : '',
    ]),
    w.noIps,
  );
  const access = html`<section class="card"><h2>${w.tokens}</h2>${tokenTable}${
    admin ? actionForm(`${path}/token`, c.session.csrf, w.mintToken) : ''
  }</section>
<section class="card"><h2>${w.ips}</h2>${ipTable}${
    admin
      ? html`<form method="post" action="${path}/ip/add">${csrf}<label for="cidr">${w.cidr}</label><input id="cidr" name="cidr" required maxlength="60" dir="ltr"><button type="submit">${w.addIp}</button></form>
${actionForm(`${path}/ip/check`, c.session.csrf, a.ip_check ? w.checkOff : w.checkOn, { on: a.ip_check ? '0' : '1' })}`
      : ''
  }</section>`;
  const flags = await accountOperatorSettings(db, a.id);
  const settings = form(
    'settings',
    w.settings,
    html`<label class="check"><input type="checkbox" name="legacy" value="1"${flags.legacyPassword ? html` checked` : ''}> ${w.legacyPassword}</label>
<label class="check"><input type="checkbox" name="otpIntl" value="1"${flags.otpInternational ? html` checked` : ''}> ${w.otpInternational}</label>
<label for="low-balance">${w.lowBalance}</label><input id="low-balance" name="lowBalance" inputmode="numeric" pattern="[0-9]*" maxlength="12" value="${flags.lowBalanceCredits ?? ''}">
<button type="submit">${w.save}</button>`,
  );
  const subs = (await listAccountsForOperator(db)).filter((x) => x.reseller === a.username);
  const subTable = a.is_reseller
    ? html`<section class="card"><h2>${w.subAccounts}</h2>${table(
        w.subAccounts,
        [w.username, w.credits, w.state],
        subs.map((s) => [
          html`<a href="/admin/accounts/${encodeURIComponent(s.username)}">${s.username}</a>`,
          num(s.credits),
          stateWord(c, s),
        ]),
        w.noSubAccounts,
      )}</section>`
    : '';
  const ledger = await ledgerPage(db, a.id, 50);
  const ledgerTable = table(
    w.ledger,
    [w.ledgerWhen, w.ledgerCurrency, w.ledgerAmount, w.ledgerReason],
    ledger.map((e) => [
      when(e.created_at, zone),
      e.currency === 'credits' ? w.credits : w.international,
      e.currency === 'credits' ? num(e.amount) : formatShekels(e.amount),
      html`<span dir="auto">${e.reason}</span>`,
    ]),
    w.noLedger,
  );
  const messages = await messageLogPage(db, a.id, {}, undefined, 20);
  const messageTable = table(
    w.recentMessages,
    [w.ledgerWhen, w.phone, w.sender, w.status, w.text],
    messages.map((m) => [
      when(m.created_at, zone),
      html`<span dir="ltr">${m.phone}</span>`,
      html`<span dir="auto">${m.source}</span>`,
      m.status === null ? m.state : String(m.status),
      html`<span dir="auto">${m.text.slice(0, 80)}</span>`,
    ]),
    w.noMessages,
  );
  const body = html`${summary}${credit}${suspension}${password}${access}${settings}${subTable}
<section class="card"><h2>${w.ledger}</h2>${ledgerTable}</section>
<section class="card"><h2>${w.recentMessages}</h2>${messageTable}<p><a href="/admin/messages?account=${encodeURIComponent(a.username)}">${w.navMessages}</a></p></section>`;
  return c.render(a.username, body, notice ? { notice } : undefined);
}

/** A POST handler for one form of the account page. */
function onAccount(r: AdminRouter, action: string, run: (c: AdminContext, a: Account) => Promise<FastifyReply>) {
  r.post(`/admin/accounts/:name/${action}`, async (c) => {
    const a = await target(c);
    return a ? run(c, a) : notFound(c);
  });
}

export function registerAdminAccountPage(r: AdminRouter): void {
  r.get('/admin/accounts/:name', async (c) => {
    const a = await target(c);
    return a ? accountPage(c, a) : notFound(c);
  });
  onAccount(r, 'credit', (c, a) => {
    const amount = c.form.get('amount') ?? '';
    const n = /^[+-]?\d{1,13}$/.test(amount.trim()) ? Number(amount.trim()) : Number.NaN;
    return actOnAccount(
      c,
      a,
      creditAccount,
      { amount: Number.isNaN(n) ? 0 : n, reason: c.form.get('reason') ?? '' },
      pathOf(a),
    );
  });
  onAccount(r, 'suspend', (c, a) =>
    actOnAccount(c, a, suspendAccount, { reason: c.form.get('reason') ?? '' }, pathOf(a)),
  );
  onAccount(r, 'resume', (c, a) => actOnAccount(c, a, resumeAccount, {}, pathOf(a)));
  onAccount(r, 'password', (c, a) =>
    actOnAccount(c, a, setConsolePassword, { password: c.form.get('password') ?? '' }, pathOf(a)),
  );
  onAccount(r, 'token', async (c, a) => {
    const reply = await runOperation(c.app, a, mintApiToken, {}, { via: 'operator' });
    if (reply.status !== 0 || !reply.token) return actOnAccount(c, a, mintApiToken, {}, pathOf(a));
    return accountPage(c, a, { kind: 'ok', text: fmt(c.w.mintedToken, { token: reply.token }) });
  });
  onAccount(r, 'token/delete', (c, a) =>
    actOnAccount(c, a, deleteApiToken, { name: c.form.get('name') ?? '' }, pathOf(a)),
  );
  onAccount(r, 'ip/add', (c, a) =>
    actOnAccount(c, a, addAllowedAddress, { cidr: c.form.get('cidr') ?? '' }, pathOf(a)),
  );
  onAccount(r, 'ip/remove', (c, a) =>
    actOnAccount(c, a, removeAllowedAddress, { cidr: c.form.get('cidr') ?? '' }, pathOf(a)),
  );
  onAccount(r, 'ip/check', (c, a) => actOnAccount(c, a, setAddressCheck, { on: c.form.get('on') === '1' }, pathOf(a)));
  onAccount(r, 'settings', async (c, a) => {
    const low = (c.form.get('lowBalance') ?? '').trim();
    const credits = /^\d{1,12}$/.test(low) ? Number(low) : null;
    const was = await accountOperatorSettings(c.app.store.db, a.id);
    const legacy = c.form.get('legacy') === '1';
    const otpIntl = c.form.get('otpIntl') === '1';
    // One operation (and one audit row) per setting that changes.
    const changes = [
      legacy !== was.legacyPassword ? ([setPasswordAuthentication, { on: legacy }] as const) : undefined,
      otpIntl !== was.otpInternational ? ([setOtpAbroad, { on: otpIntl }] as const) : undefined,
      credits !== was.lowBalanceCredits ? ([setLowBalanceWarning, { credits }] as const) : undefined,
    ].filter((x) => x !== undefined);
    for (const [op, doc] of changes) {
      const reply = await runOperation(c.app, a, op as typeof setOtpAbroad, doc, { via: 'operator' });
      if (reply.status !== 0) return actOnAccount(c, a, op as typeof setOtpAbroad, doc, pathOf(a));
    }
    return c.redirect(pathOf(a), { ok: 'done' });
  });
}
