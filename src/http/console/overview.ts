// The console's first page answers "how am I doing": balances (with a warning below the customer's threshold),
// sends and credits charged today and this month (in the account's time zone), the delivery rate of the last
// 7 days, the last campaigns with their progress, push URLs failing now, and what the account still needs to
// call the API (a token, and with the IP check on, an address), each with a link to where it is done.
import { DAY_MS, fromZoned, zonedParts } from '../../domain/dates.ts';
import { listActiveTokens, listAllowedIps } from '../../store/read-models.ts';
import { campaignOutcomes, campaignsPage } from '../../store/console-campaigns.ts';
import { failingPushUrls, lowBalanceThreshold, outcomesSince, sendsSince } from '../../store/console-overview.ts';
import { num, percent, shekels, when } from './format.ts';
import { esc, table, userText } from './html.ts';
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
    const todo: string[] = [];
    if (tokens.length === 0) todo.push(`<li><a href="/console/tokens">${esc(t.overviewNoToken)}</a></li>`);
    if (account.ip_check && ips.length === 0) todo.push(`<li><a href="/console/ips">${esc(t.ipOnWithNone)}</a></li>`);
    const low =
      threshold !== null && Number(account.credits) < threshold
        ? `<p class="notice error" role="alert"><a href="/console/balance">${esc(fmt(t.overviewLowBalance, { credits: num(account.credits), threshold: num(threshold) }))}</a></p>`
        : '';
    const pushes = failing.length
      ? `<h2>${esc(t.overviewFailingPush)}</h2><ul>${failing
          .map(
            (f) =>
              `<li><a href="/console/push">${esc(fmt(t.overviewPushFailing, { type: f.type, url: f.url, failures: num(f.failures), since: when(f.since, tz) }))}</a></li>`,
          )
          .join('')}</ul>`
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
          `<a href="/console/campaigns/${k.id}">${esc(k.id)}${k.name ? ` · ${userText(k.name)}` : ''}</a>`,
          esc(t[`campaignState_${k.state}` as keyof typeof t] ?? k.state),
          `<span class="nowrap">${esc(when(Number(k.scheduled_at ?? k.created_at), tz))}</span>`,
          `<span class="num">${esc(num(k.recipients))}</span>`,
          `<span class="num">${esc(num(o.delivered))}</span>`,
          `<span class="num">${esc(num(o.failed))}</span>`,
          `<span class="num">${esc(num(o.pending))}</span>`,
          `<progress max="${total || 1}" value="${done}" aria-label="${esc(fmt(t.overviewProgressOf, { id: k.id }))}"></progress> ${esc(percent(done, total))}`,
        ];
      }),
      t.campaignsNone,
    );
    return c.render(
      t.home,
      `${low}<ul class="stats">
<li>${esc(t.credits)}<b>${esc(num(account.credits))}</b></li>
<li>${esc(t.international)}<b>${esc(shekels(account.intl_agorot))}</b></li>
<li>${esc(t.overviewToday)}<b>${esc(fmt(t.overviewSends, { messages: num(day.messages), credits: num(day.credits) }))}</b></li>
<li>${esc(t.overviewMonth)}<b>${esc(fmt(t.overviewSends, { messages: num(monthly.messages), credits: num(monthly.credits) }))}</b></li>
<li>${esc(t.overviewRate)}<b>${esc(percent(week.delivered, finished))}</b><span class="muted">${esc(fmt(t.overviewRateOf, { delivered: num(week.delivered), finished: num(finished) }))}</span></li>
<li>${esc(t.overviewTokens)}<b>${esc(tokens.length)}</b></li>
<li>${esc(t.overviewIpCheck)}<b>${esc(account.ip_check ? t.birthdayOn : t.birthdayOff)}</b></li></ul>
${todo.length ? `<h2>${esc(t.overviewTodo)}</h2><ul>${todo.join('')}</ul>` : ''}${pushes}
<h2>${esc(t.overviewLastCampaigns)}</h2>${recent}
<p><a href="/console/campaigns">${esc(t.overviewCampaigns)}</a> · <a href="/console/messages">${esc(t.logTitle)}</a></p>`,
    );
  });
}
