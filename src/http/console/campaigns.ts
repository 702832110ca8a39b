// Campaigns: the list (state, recipients, delivered/failed/pending) and a campaign's page: its counts, a chart
// of deliveries over time (uPlot; the same figures as a table for screen readers and without scripts), its
// messages a page at a time (search by phone or external id) and, while scheduled, cancel (the API's cancel).
import { formatLong } from '../../domain/dates.ts';
import { normalizePhone, toNational } from '../../domain/phone.ts';
import { deliveryStatusText } from '../../domain/status.ts';
import { cancel } from '../../operations/campaigns.ts';
import type { Account } from '../../store/accounts.ts';
import { findCampaign } from '../../store/campaigns.ts';
import {
  campaignMessagesPage,
  campaignOutcomes,
  campaignsPage,
  campaignTimeline,
} from '../../store/console-campaigns.ts';
import { actionForm, esc, olderNewerPager, table, type Html } from './html.ts';
import { fmt, type Messages } from './i18n.ts';
import { runOperation } from '../../operations/execute.ts';
import { whole, type ConsoleRouter, type PageContext } from './router.ts';

const CAMPAIGNS_PER_PAGE = 25;
const MESSAGES_PER_PAGE = 50;

function stateName(t: Messages, state: string): string {
  const key = `campaignState_${state}` as keyof Messages;
  return Object.hasOwn(t, key) ? t[key] : state;
}

async function listPage(c: PageContext) {
  return c.render(c.t.navCampaigns, await campaignList(c, c.account, '/console/campaigns', true));
}

/**
 * The campaigns of `owner` (the signed-in account, or a reseller's sub-account), newest first, a page at a
 * time from `path`; `linked`: each row opens its campaign page (the signed-in account's own campaigns).
 */
export async function campaignList(c: PageContext, owner: Account, path: string, linked: boolean): Promise<Html> {
  const { t } = c;
  const db = c.app.store.db;
  const before = whole(c.query.before);
  const campaigns = await campaignsPage(db, owner.id, before, CAMPAIGNS_PER_PAGE);
  const outcomes = await campaignOutcomes(
    db,
    owner.id,
    campaigns.map((k) => Number(k.id)),
  );
  const tz = owner.time_zone;
  const rows = campaigns.map((k): Html[] => {
    const o = outcomes.get(Number(k.id))!;
    return [
      linked ? `<a href="/console/campaigns/${k.id}">${esc(k.id)}</a>` : esc(k.id),
      esc(k.name ?? ''),
      esc(k.kind),
      esc(stateName(t, k.state)),
      esc(formatLong(Number(k.scheduled_at ?? k.created_at), tz)),
      `<span class="num">${esc(k.recipients)}</span>`,
      esc(o.delivered),
      esc(o.failed),
      esc(o.pending),
    ];
  });
  const last = campaigns.at(-1);
  const pager = olderNewerPager(
    t,
    path,
    before !== undefined,
    campaigns.length === CAMPAIGNS_PER_PAGE && last ? String(last.id) : undefined,
  );
  return `${table(t.navCampaigns, [t.campaignId, t.name, t.campaignKind, t.state, t.campaignWhen, t.recipients, t.delivered, t.failedCount, t.pending], rows, t.campaignsNone)}${pager}`;
}

async function campaignPage(c: PageContext, notice?: { kind: 'ok' | 'error'; text: string }) {
  const { t, account } = c;
  const db = c.app.store.db;
  const id = whole(c.params.id);
  const campaign = id === undefined ? undefined : await findCampaign(db, account.id, id);
  if (!campaign) return c.render(t.notFound, `<p>${esc(t.notFoundText)}</p>`, { code: 404 });
  const tz = account.time_zone;
  const q = (c.query.q ?? '').trim().slice(0, 100);
  const after = whole(c.query.after);
  let phone: string | undefined;
  let externalId: string | undefined;
  if (q) {
    const n = normalizePhone(q, { allowInternational: true });
    if (n.ok) phone = n.e164;
    else externalId = q;
  }
  const [outcomes, timeline, messages] = await Promise.all([
    campaignOutcomes(db, account.id, [id!]),
    campaignTimeline(db, account.id, id!),
    campaignMessagesPage(db, account.id, id!, { afterId: after, phone, externalId, limit: MESSAGES_PER_PAGE }),
  ]);
  // A phone that is also someone's external id: search both.
  if (phone && messages.length === 0 && after === undefined) {
    messages.push(...(await campaignMessagesPage(db, account.id, id!, { externalId: q, limit: MESSAGES_PER_PAGE })));
  }
  const o = outcomes.get(id!)!;
  const stats = `<ul class="stats">
<li>${esc(t.state)}<b>${esc(stateName(t, campaign.state))}</b></li>
<li>${esc(t.recipients)}<b>${esc(campaign.recipients)}</b></li>
<li>${esc(t.delivered)}<b>${esc(o.delivered)}</b></li>
<li>${esc(t.failedCount)}<b>${esc(o.failed)}</b></li>
<li>${esc(t.pending)}<b>${esc(o.pending)}</b></li>
${o.cancelled ? `<li>${esc(t.cancelledCount)}<b>${esc(o.cancelled)}</b></li>` : ''}</ul>
<p class="muted">${esc(fmt(t.campaignFacts, { kind: campaign.kind, source: campaign.source, created: formatLong(Number(campaign.created_at), tz), credits: campaign.credits_charged }))}
${campaign.scheduled_at ? ` ${esc(fmt(t.campaignScheduledFor, { at: formatLong(Number(campaign.scheduled_at), tz) }))}` : ''}</p>`;
  const cancelForm =
    campaign.state === 'scheduled'
      ? actionForm(
          `/console/campaigns/${id}/cancel`,
          c.session.csrf,
          t.campaignCancel,
          {},
          { confirm: t.campaignCancelConfirm, danger: true },
        )
      : '';
  // Cumulative counts, from zero one bucket before the first outcome (one bucket alone would make no line).
  const chartData = {
    x: [] as number[],
    delivered: [0],
    failed: [0],
    labels: { delivered: t.delivered, failed: t.failedCount },
  };
  if (timeline.points.length) chartData.x.push(Math.round((timeline.points[0].at - timeline.bucketMs) / 1000));
  let sumOk = 0;
  let sumBad = 0;
  for (const p of timeline.points) {
    chartData.x.push(Math.round(p.at / 1000));
    chartData.delivered.push((sumOk += p.delivered));
    chartData.failed.push((sumBad += p.failed));
  }
  const chart =
    timeline.points.length === 0
      ? `<p class="empty">${esc(t.chartEmpty)}</p>`
      : `<figure>
<div id="chart" class="chart" role="img" aria-label="${esc(fmt(t.chartLabel, { delivered: sumOk, failed: sumBad }))}"></div>
<figcaption class="muted">${esc(fmt(t.chartCaption, { seconds: timeline.bucketMs / 1000 }))}</figcaption></figure>
<script type="application/json" id="chart-data">${JSON.stringify(chartData).replace(/</g, '\\u003c')}</script>
<details><summary>${esc(t.chartTable)}</summary>${table(
          t.chartTable,
          [t.pushWhen, t.delivered, t.failedCount],
          timeline.points.map((p) => [esc(formatLong(p.at, tz)), esc(p.delivered), esc(p.failed)]),
          t.chartEmpty,
        )}</details>`;
  const rows = messages.map((m): Html[] => [
    esc(toNational(m.phone)),
    esc(m.external_id ?? ''),
    esc(stateName(t, `m_${m.state}`)),
    esc(
      m.status === null
        ? ''
        : `${m.status} ${c.lang === 'he' ? deliveryStatusText(m.status).he : deliveryStatusText(m.status).en}`,
    ),
    esc(m.status_at === null ? '' : formatLong(m.status_at, tz)),
    esc(m.parts),
  ]);
  const search = `<form method="get" action="/console/campaigns/${id}" class="row" role="search">
<div><label for="q">${esc(t.messageSearch)}</label><input id="q" name="q" type="search" value="${esc(q)}" maxlength="100"></div>
<button type="submit">${esc(t.search)}</button>${q ? `<a href="/console/campaigns/${id}">${esc(t.clearSearch)}</a>` : ''}</form>`;
  const lastMessage = messages.at(-1);
  const qs = q ? `&q=${encodeURIComponent(q)}` : '';
  const pager = `<nav class="pager" aria-label="${esc(t.pages)}">${after !== undefined ? `<a href="/console/campaigns/${id}${q ? `?q=${encodeURIComponent(q)}` : ''}">${esc(t.firstPage)}</a>` : ''}
${messages.length === MESSAGES_PER_PAGE && lastMessage ? `<a href="/console/campaigns/${id}?after=${lastMessage.id}${qs}">${esc(t.nextPage)}</a>` : ''}</nav>`;
  const body = `${stats}${cancelForm}<h2>${esc(t.chartTitle)}</h2>${chart}<h2>${esc(t.messages)}</h2>${search}
${table(t.messages, [t.phone, t.externalId, t.state, t.deliveryStatus, t.statusTime, t.parts], rows, q ? t.messagesNoMatch : t.messagesNone)}${pager}`;
  return c.render(`${t.campaign} ${id}${campaign.name ? ` · ${campaign.name}` : ''}`, body, {
    notice,
    scripts: timeline.points.length ? ['uPlot.iife.min.js', 'chart.js'] : [],
    styles: timeline.points.length ? ['uPlot.min.css'] : [],
  });
}

export function registerCampaigns(r: ConsoleRouter): void {
  r.get('/console/campaigns', (c) => listPage(c));
  r.get('/console/campaigns/:id', (c) => campaignPage(c));
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
