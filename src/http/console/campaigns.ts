// Campaigns: the list (state, recipients, delivered/failed/pending) and a campaign's page: its counts, a chart
// of deliveries over time (uPlot; the same figures as a table for screen readers and without scripts), its
// messages a page at a time (search by phone or external id) and, while scheduled, cancel (the API's cancel).
import { formatLong } from '../../domain/dates.ts';
import { cancel } from '../../operations/campaigns.ts';
import type { Account } from '../../store/accounts.ts';
import { findCampaign, type Campaign } from '../../store/read-models.ts';
import { campaignBreakdown, campaignText } from '../../store/read-models.ts';
import { campaignOutcomes, campaignsPage, campaignTimeline } from '../../store/read-models.ts';
import { messageLogPage } from '../../store/read-models.ts';
import { deliveryChart } from './campaign-chart.ts';
import { num, percent, shekels, when } from './format.ts';
import { filterForm, logQuery, outcomeOf, parseLogQuery, shownText, statusWords } from './message-log.ts';
import { badFiltersNotice, LOG_PAGE_SIZE, logSection, sendLogCsv } from './messages.ts';
import { actionForm, html, olderNewerPager, table, type Html, type HtmlValue, userText } from './html.ts';
import { fmt, type Messages } from './i18n.ts';
import { runOperation } from '../../operations/execute.ts';
import { whole, type ConsoleRouter, type PageContext } from './router.ts';

const CAMPAIGNS_PER_PAGE = 25;

function stateName(t: Messages, state: string): string {
  const key = `campaignState_${state}` as keyof Messages;
  return Object.hasOwn(t, key) ? t[key] : state;
}

const KINDS = ['sms', 'bulk', 'tts', 'birthday', 'otp', 'verify'];
/** One-time codes and verification messages have a page of their own (codes.ts): not listed unless asked for. */
const CODE_KINDS = ['otp', 'verify'];

async function listPage(c: PageContext) {
  const { t } = c;
  const kind = KINDS.includes(c.query.kind ?? '') ? c.query.kind : undefined;
  const filter = html`<form method="get" action="/console/campaigns" class="row" role="search">
<div><label for="kind">${t.campaignKind}</label><select id="kind" name="kind"><option value="">${t.kindAllButCodes}</option>
${KINDS.map((k) => html`<option value="${k}"${kind === k ? html` selected` : ''}>${k}</option>`)}</select></div>
<button type="submit">${t.logApply}</button></form><p class="muted"><a href="/console/codes">${t.codesLink}</a></p>`;
  return c.render(t.navCampaigns, html`${filter}${await campaignList(c, c.account, '/console/campaigns', true, kind)}`);
}

/**
 * The campaigns of `owner` (the signed-in account, or a reseller's sub-account), newest first, a page at a
 * time from `path`; `linked`: each row opens its campaign page (the signed-in account's own campaigns).
 */
export async function campaignList(
  c: PageContext,
  owner: Account,
  path: string,
  linked: boolean,
  kind?: string,
): Promise<Html> {
  const { t } = c;
  const db = c.app.store.db;
  const before = whole(c.query.before);
  const campaigns = await campaignsPage(
    db,
    owner.id,
    before,
    CAMPAIGNS_PER_PAGE,
    kind ? { only: kind } : { exclude: CODE_KINDS },
  );
  const outcomes = await campaignOutcomes(
    db,
    owner.id,
    campaigns.map((k) => Number(k.id)),
  );
  const tz = owner.time_zone;
  const rows = campaigns.map((k): HtmlValue[] => {
    const o = outcomes.get(Number(k.id))!;
    return [
      linked ? html`<a href="/console/campaigns/${k.id}">${k.id}</a>` : k.id,
      userText(k.name ?? ''),
      k.kind,
      stateName(t, k.state),
      formatLong(Number(k.scheduled_at ?? k.created_at), tz),
      html`<span class="num">${num(k.recipients)}</span>`,
      num(o.delivered),
      num(o.failed),
      num(o.pending),
    ];
  });
  const last = campaigns.at(-1);
  const pager = olderNewerPager(
    t,
    kind ? `${path}?kind=${kind}` : path,
    before !== undefined,
    campaigns.length === CAMPAIGNS_PER_PAGE && last ? String(last.id) : undefined,
  );
  return html`${table(t.navCampaigns, [t.campaignId, t.name, t.campaignKind, t.state, t.campaignWhen, t.recipients, t.delivered, t.failedCount, t.pending], rows, t.campaignsNone)}${pager}`;
}

async function campaignPage(c: PageContext, notice?: { kind: 'ok' | 'error'; text: string }) {
  const { t, account } = c;
  const db = c.app.store.db;
  const id = whole(c.params.id);
  const campaign = id === undefined ? undefined : await findCampaign(db, account.id, id);
  if (!campaign) return c.render(t.notFound, html`<p>${t.notFoundText}</p>`, { code: 404 });
  const tz = account.time_zone;
  const parsed = parseLogQuery(c.query, tz);
  const path = `/console/campaigns/${id}`;
  const [breakdown, timeline, first, messages] = await Promise.all([
    campaignBreakdown(db, account.id, id!),
    campaignTimeline(db, account.id, id!),
    campaignText(db, account.id, id!),
    messageLogPage(db, account.id, { ...parsed.filter, campaignId: id }, parsed.cursor, LOG_PAGE_SIZE),
  ]);
  const counts = { delivered: 0, failed: 0, blocked: 0, pending: 0, cancelled: 0 };
  for (const b of breakdown) counts[outcomeOf(b)] += b.count;
  const finished = counts.delivered + counts.failed;
  const stats = html`<ul class="stats">
<li>${t.state}<b>${stateName(t, campaign.state)}</b></li>
<li>${t.recipients}<b>${num(campaign.recipients)}</b></li>
<li>${t.delivered}<b>${num(counts.delivered)}</b></li>
<li>${t.failedCount}<b>${num(counts.failed)}</b></li>
${counts.blocked ? html`<li>${t.logStatus_blocked}<b>${num(counts.blocked)}</b></li>` : ''}
<li>${t.pending}<b>${num(counts.pending)}</b></li>
${counts.cancelled ? html`<li>${t.cancelledCount}<b>${num(counts.cancelled)}</b></li>` : ''}
<li>${t.campaignRate}<b>${percent(counts.delivered, finished)}</b></li>
<li>${t.campaignCost}<b>${costText(t, campaign)}</b></li></ul>
${first ? html`<h2>${t.campaignTextTitle}</h2>${userText(shownText(first), 'blockquote', html` class="message-text"`)}${campaign.kind === 'bulk' ? html`<p class="muted">${t.campaignTextFirst}</p>` : ''}` : ''}
<p class="muted">${fmt(t.campaignFacts, { kind: campaign.kind, source: campaign.source, created: when(campaign.created_at, tz), credits: num(campaign.credits_charged) })}
${campaign.scheduled_at ? ` ${fmt(t.campaignScheduledFor, { at: when(campaign.scheduled_at, tz) })}` : ''}</p>`;
  const cancelForm =
    campaign.state === 'scheduled'
      ? actionForm(
          `${path}/cancel`,
          c.session.csrf,
          t.campaignCancel,
          {},
          { confirm: t.campaignCancelConfirm, danger: true },
        )
      : '';
  const reasons = table(
    t.campaignBreakdown,
    [t.logStatus, t.logError, t.campaignCount],
    breakdown.map((b) => [
      html`<span class="status-${outcomeOf(b)}">${statusWords(t, c.lang, b)}</span>`,
      b.error ?? '',
      html`<span class="num">${num(b.count)}</span>`,
    ]),
    t.messagesNone,
  );
  const body = html`${stats}${cancelForm}<h2>${t.chartTitle}</h2>${deliveryChart(c, timeline)}
<h2>${t.campaignBreakdown}</h2>${reasons}
<h2>${t.messages}</h2>${filterForm(t, path, parsed.values, true)}
<p><a class="button" href="${`${path}/messages.csv${logQuery(parsed.values)}`}" download>${t.campaignExport}</a></p>
${logSection(c, parsed, messages, path)}`;
  return c.render(`${t.campaign} ${id}${campaign.name ? ` · ${campaign.name}` : ''}`, body, {
    notice: notice ?? badFiltersNotice(c, parsed),
    scripts: timeline.points.length ? ['uPlot.iife.min.js', 'chart.js'] : [],
    styles: timeline.points.length ? ['uPlot.min.css'] : [],
  });
}

function costText(t: Messages, campaign: Campaign): string {
  const credits = `${num(campaign.credits_charged)} ${t.credits}`;
  return campaign.agorot_charged ? `${credits} + ${shekels(campaign.agorot_charged)}` : credits;
}

export function registerCampaigns(r: ConsoleRouter): void {
  r.get('/console/campaigns', (c) => listPage(c));
  r.get('/console/campaigns/:id', (c) => campaignPage(c));
  r.get('/console/campaigns/:id/messages.csv', async (c) => {
    const id = whole(c.params.id);
    const campaign = id === undefined ? undefined : await findCampaign(c.app.store.db, c.account.id, id);
    if (!campaign) return campaignPage(c);
    return sendLogCsv(c, `campaign-${id}.csv`, { campaignId: id });
  });
  r.post('/console/campaigns/:id/cancel', async (c) => {
    const id = whole(c.params.id);
    if (id === undefined) return campaignPage(c);
    const reply = await runOperation(c.app, c.account, cancel, { campaign_id: id });
    if (reply.status === 0) {
      return c.redirect(`/console/campaigns/${id}`, { ok: 'campaignCancelled' });
    }
    return campaignPage(c, { kind: 'error', text: String(reply.message) });
  });
}
