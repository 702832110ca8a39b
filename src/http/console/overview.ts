// The console's first page answers "how am I doing": balances (with a warning below the customer's threshold),
// sends and credits charged today and this month (in the account's time zone), the delivery rate of the last
// 7 days, the last campaigns with their progress, push URLs failing now, and what the account still needs to
// call the API (a token, and with the IP check on, an address), each with a link to where it is done.
import { DAY_MS, fromZoned, zonedParts } from '../../domain/dates.ts';
import { listActiveTokens, listAllowedIps } from '../../store/read-models.ts';
import { campaignOutcomes, campaignsPage } from '../../store/read-models.ts';
import { failingPushUrls, lowBalanceThreshold, outcomesSince, sendsSince } from '../../store/read-models.ts';
import { num, percent, shekels, when } from './format.ts';
import { html, table, type Html, userText } from './html.ts';
import { fmt } from './i18n.ts';
import type { ConsoleRouter } from './router.ts';

const LAST_CAMPAIGNS = 5;

export function registerOverview(r: ConsoleRouter): void {
  r.get('/console', async (c) => {
    const { t, account } = c;
    const db = c.app.store.db;
    const tz = account.time_zone;
    const p = zonedParts(c.now, tz);
    const today = fromZoned({ ...p, hour: 0, minute: 0, second: 0 }, tz);
    const month = fromZoned({ ...p, day: 1, hour: 0, minute: 0, second: 0 }, tz);
    const [tokens, ips, day, monthly, week, failing, threshold, campaigns] = await Promise.all([
      listActiveTokens(db, account.id, c.now),
      listAllowedIps(db, account.id),
      sendsSince(db, account.id, today),
      sendsSince(db, account.id, month),
      outcomesSince(db, account.id, c.now - 7 * DAY_MS),
      failingPushUrls(db, account.id),
      lowBalanceThreshold(db, account.id),
      campaignsPage(db, account.id, undefined, LAST_CAMPAIGNS),
    ]);
    const outcomes = await campaignOutcomes(
      db,
      account.id,
      campaigns.map((k) => Number(k.id)),
    );
    const todo: Html[] = [];
    if (tokens.length === 0) todo.push(html`<li><a href="/console/tokens">${t.overviewNoToken}</a></li>`);
    if (account.ip_check && ips.length === 0) todo.push(html`<li><a href="/console/ips">${t.ipOnWithNone}</a></li>`);
    const low =
      threshold !== null && Number(account.credits) < threshold
        ? html`<p class="notice error" role="alert"><a href="/console/balance">${fmt(t.overviewLowBalance, { credits: num(account.credits), threshold: num(threshold) })}</a></p>`
        : '';
    const pushes = failing.length
      ? html`<h2>${t.overviewFailingPush}</h2><ul>${failing.map(
          (f) =>
            html`<li><a href="/console/push">${fmt(t.overviewPushFailing, { type: f.type, url: f.url, failures: num(f.failures), since: when(f.since, tz) })}</a></li>`,
        )}</ul>`
      : '';
    const finished = week.delivered + week.failed;
    const recent = table(
      t.overviewLastCampaigns,
      [t.campaign, t.state, t.campaignWhen, t.recipients, t.delivered, t.failedCount, t.pending, t.overviewProgress],
      campaigns.map((k) => {
        const o = outcomes.get(Number(k.id))!;
        const total = o.delivered + o.failed + o.pending;
        const done = o.delivered + o.failed;
        return [
          html`<a href="/console/campaigns/${k.id}">${k.id}${k.name ? html` · ${userText(k.name)}` : ''}</a>`,
          t[`campaignState_${k.state}` as keyof typeof t] ?? k.state,
          html`<span class="nowrap">${when(Number(k.scheduled_at ?? k.created_at), tz)}</span>`,
          html`<span class="num">${num(k.recipients)}</span>`,
          html`<span class="num">${num(o.delivered)}</span>`,
          html`<span class="num">${num(o.failed)}</span>`,
          html`<span class="num">${num(o.pending)}</span>`,
          html`<progress max="${total || 1}" value="${done}" aria-label="${fmt(t.overviewProgressOf, { id: k.id })}"></progress> ${percent(done, total)}`,
        ];
      }),
      t.campaignsNone,
    );
    return c.render(
      t.home,
      html`${low}<ul class="stats">
<li>${t.credits}<b>${num(account.credits)}</b></li>
<li>${t.international}<b>${shekels(account.intl_agorot)}</b></li>
<li>${t.overviewToday}<b>${fmt(t.overviewSends, { messages: num(day.messages), credits: num(day.credits) })}</b></li>
<li>${t.overviewMonth}<b>${fmt(t.overviewSends, { messages: num(monthly.messages), credits: num(monthly.credits) })}</b></li>
<li>${t.overviewRate}<b>${percent(week.delivered, finished)}</b><span class="muted">${fmt(t.overviewRateOf, { delivered: num(week.delivered), finished: num(finished) })}</span></li>
<li>${t.overviewTokens}<b>${tokens.length}</b></li>
<li>${t.overviewIpCheck}<b>${account.ip_check ? t.birthdayOn : t.birthdayOff}</b></li></ul>
${todo.length ? html`<h2>${t.overviewTodo}</h2><ul>${todo}</ul>` : ''}${pushes}
<h2>${t.overviewLastCampaigns}</h2>${recent}
<p><a href="/console/campaigns">${t.overviewCampaigns}</a> · <a href="/console/messages">${t.logTitle}</a></p>`,
    );
  });
}
