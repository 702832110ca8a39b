// The console's first page: balances, and what the account still needs to call the API (a token, and with the
// IP check on, an address), each with a link to where it is done.
import { formatShekels } from '../../domain/money.ts';
import { listAllowedIps } from '../../store/accounts.ts';
import { listActiveTokens } from '../../store/tokens.ts';
import { esc } from './html.ts';
import type { ConsoleRouter } from './router.ts';

export function registerOverview(r: ConsoleRouter): void {
  r.get('/console', async (c) => {
    const { t, account } = c;
    const db = c.app.store.db;
    const [tokens, ips] = await Promise.all([listActiveTokens(db, account.id, c.now), listAllowedIps(db, account.id)]);
    const todo: string[] = [];
    if (tokens.length === 0) todo.push(`<li><a href="/console/tokens">${esc(t.overviewNoToken)}</a></li>`);
    if (account.ip_check && ips.length === 0) todo.push(`<li><a href="/console/ips">${esc(t.ipOnWithNone)}</a></li>`);
    return c.render(
      t.home,
      `<ul class="stats">
<li>${esc(t.credits)}<b>${esc(account.credits)}</b></li>
<li>${esc(t.international)}<b>₪${esc(formatShekels(account.intl_agorot))}</b></li>
<li>${esc(t.overviewTokens)}<b>${esc(tokens.length)}</b></li>
<li>${esc(t.overviewIpCheck)}<b>${esc(account.ip_check ? t.birthdayOn : t.birthdayOff)}</b></li></ul>
${todo.length ? `<h2>${esc(t.overviewTodo)}</h2><ul>${todo.join('')}</ul>` : ''}
<p><a href="/console/campaigns">${esc(t.overviewCampaigns)}</a></p>`,
    );
  });
}
