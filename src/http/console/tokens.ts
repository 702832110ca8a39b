// API tokens: the list (masked), a new one shown once with a copy button, deletion (stops at once), and the
// five-token limit explained. Minting is the API's own (operations/tokens.ts mintToken).
import { formatLong } from '../../domain/dates.ts';
import { maskToken, MAX_ACTIVE_TOKENS, TOKEN_PREFIX } from '../../domain/token.ts';
import { deleteApiToken, mintApiToken } from '../../operations/account-access.ts';
import { runOperation } from '../../operations/execute.ts';
import { listTokens } from '../../store/read-models.ts';
import { actionForm, csrfField, html, table, type HtmlValue } from './html.ts';
import { fmt } from './i18n.ts';
import type { ConsoleRouter, PageContext } from './router.ts';

async function tokensPage(
  c: PageContext,
  extra: { created?: { token: string; name: string; expiresAt: number }; error?: string } = {},
) {
  const { t, account } = c;
  const tokens = await listTokens(c.app.store.db, account.id);
  const active = tokens.filter((k) => k.expires_at > c.now && k.superseded_at === null);
  const tz = account.time_zone;
  const rows = tokens.map((k): HtmlValue[] => {
    const live = k.expires_at > c.now && k.superseded_at === null;
    return [
      k.name,
      formatLong(k.created_at, tz),
      formatLong(k.expires_at, tz),
      html`<code>${maskToken(TOKEN_PREFIX, k.last4)}</code>`,
      live ? t.tokenActive : t.tokenExpired,
      actionForm(
        '/console/tokens/delete',
        c.session.csrf,
        t.delete,
        { name: k.name },
        { confirm: fmt(t.tokenDeleteConfirm, { name: k.name }), danger: true },
      ),
    ];
  });
  const created = extra.created
    ? html`<section class="card" aria-labelledby="new-token"><h2 id="new-token">${t.tokenCreated}</h2>
<p class="warn">${t.tokenShownOnce}</p><label for="token-value">${extra.created.name}</label>
<input id="token-value" readonly value="${extra.created.token}" class="mono">
<button type="button" data-copy="token-value" data-copied="${t.copied}" hidden>${t.copy}</button>
<p class="muted">${fmt(t.tokenExpires, { date: formatLong(extra.created.expiresAt, tz) })}</p></section>`
    : '';
  const full = active.length >= MAX_ACTIVE_TOKENS;
  const form = full
    ? html`<p class="warn" id="limit">${fmt(t.tokenLimitReached, { max: MAX_ACTIVE_TOKENS })}</p>`
    : html`<form method="post" action="/console/tokens/new">${csrfField(c.session.csrf)}<button type="submit">${t.tokenNew}</button></form>`;
  const body = html`${created}<p>${fmt(t.tokenLimit, { max: MAX_ACTIVE_TOKENS, active: active.length })}</p>${form}
${table(t.navTokens, [t.name, t.created, t.tokenExpiry, t.tokenValue, t.state, t.actions], rows, t.none)}`;
  return c.render(t.navTokens, body, { notice: extra.error ? { kind: 'error', text: extra.error } : undefined });
}

export function registerTokens(r: ConsoleRouter): void {
  r.get('/console/tokens', (c) => tokensPage(c));

  r.post('/console/tokens/new', async (c) => {
    const created = await runOperation(c.app, c.account, mintApiToken, {});
    if (created.status === 511) return tokensPage(c, { error: fmt(c.t.tokenLimitReached, { max: MAX_ACTIVE_TOKENS }) });
    if (created.token === undefined) return tokensPage(c, { error: created.message });
    return tokensPage(c, { created: { token: created.token, name: created.name, expiresAt: created.expiresAt } });
  });

  r.post('/console/tokens/delete', async (c) => {
    const name = c.form.get('name') ?? '';
    const deleted = await runOperation(c.app, c.account, deleteApiToken, { name });
    return c.redirect('/console/tokens', deleted.done ? { ok: 'tokenDeleted' } : { error: 'tokenUnknown' });
  });
}
