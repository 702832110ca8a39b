// /admin/margins: the margins report of a month (domain/margins.ts, as `yona admin report margins` prints it):
// per channel, per account with each reseller's group, and the total, with a chart of the 12 months to it. The
// month and the price one credit sells for come from the query (a GET form): any operator may read it.
import { calendarMonth, monthSpan } from '../../domain/dates.ts';
import { closesGroup, marginReport, parseCreditPrice, type MarginLine } from '../../domain/margins.ts';
import { formatMilliShekels } from '../../domain/money.ts';
import { trafficBetween, trafficByChannel, trafficBySpan } from '../../store/read-models.ts';
import { num } from '../console/format.ts';
import { fmt } from '../console/i18n.ts';
import { html, table, type Html, type HtmlValue } from '../console/html.ts';
import type { AdminWords } from './i18n.ts';
import { marginsChart, monthsTo } from './margins-chart.ts';
import type { AdminContext, AdminRouter } from './router.ts';

const CHANNEL_WORD: Record<string, keyof AdminWords> = {
  sms: 'channelSms',
  voice: 'channelVoice',
  whatsapp: 'channelWhatsapp',
};

function columns(w: AdminWords, first: string): string[] {
  return [
    first,
    w.marginsMessages,
    w.marginsParts,
    w.marginsCredits,
    w.marginsIntl,
    w.marginsCharged,
    w.marginsCost,
    w.marginsMargin,
  ];
}

function cells(name: HtmlValue, l: MarginLine): HtmlValue[] {
  const money = (agorot: number) => formatMilliShekels(Math.round(agorot * 1000));
  return [
    name,
    num(l.messages),
    num(l.parts),
    num(l.charged_credits),
    money(l.charged_international_agorot),
    money(l.charged_agorot),
    money(l.carrier_cost_agorot),
    money(l.margin_agorot),
  ];
}

function form(c: AdminContext, month: string, price: string): Html {
  const { w } = c;
  return html`<form method="get" action="/admin/margins" class="filters">
<label>${w.marginsMonth} <input name="month" value="${month}" inputmode="numeric" pattern="\\d{4}-\\d{2}" required></label>
<label>${w.marginsCreditPrice} <input name="credit-price" value="${price}" inputmode="decimal"></label>
<button type="submit">${w.marginsShow}</button></form>`;
}

export function registerAdminMargins(r: AdminRouter): void {
  r.get('/admin/margins', async (c) => {
    const { w } = c;
    const db = c.app.store.db;
    const zone = c.app.config.defaultTimeZone;
    const month = (c.query.month ?? '').trim() || calendarMonth(c.now, zone);
    const price = (c.query['credit-price'] ?? '').trim();
    const span = monthSpan(month, zone);
    const creditMilli = price === '' ? 0 : parseCreditPrice(price);
    if (!span || creditMilli === null)
      return c.render(w.marginsTitle, form(c, month, price), {
        code: 400,
        notice: { kind: 'error', text: span ? w.marginsBadPrice : w.marginsBadMonth },
      });
    const report = marginReport(
      await trafficBetween(db, span.start, span.end),
      await trafficByChannel(db, span.start, span.end),
      creditMilli,
    );
    const months = monthsTo(month, 12);
    const starts = months.map((m) => monthSpan(m, zone)!.start);
    const sums = await trafficBySpan(db, [...starts, span.end]);

    const channelRows = report.channels.map((ch) =>
      cells(CHANNEL_WORD[ch.channel] ? w[CHANNEL_WORD[ch.channel]] : ch.channel, ch),
    );
    const accountRows: HtmlValue[][] = [];
    for (const [i, a] of report.accounts.entries()) {
      const link = html`<a href="/admin/accounts/${encodeURIComponent(a.username)}">${a.username}</a>`;
      accountRows.push(cells(a.reseller === null ? link : html`<span class="sub">↳ ${link}</span>`, a));
      const closed = closesGroup(report, i);
      const group = report.resellers.find((g) => g.reseller === closed);
      if (group) accountRows.push(cells(html`<b>${fmt(w.marginsGroup, { reseller: group.reseller })}</b>`, group));
    }
    if (accountRows.length > 0) accountRows.push(cells(html`<b>${w.marginsTotal}</b>`, report.total));
    const unpriced = report.total.unpriced_messages;
    const body = html`<p>${fmt(w.marginsIntro, { zone })}</p>${form(c, month, price)}
${price === '' ? html`<p class="muted">${w.marginsZeroPrice}</p>` : ''}
${marginsChart(w, { month, zone, months, starts, sums, creditMilli })}
<section class="card" aria-labelledby="by-channel"><h2 id="by-channel">${w.marginsByChannel}</h2>${table(
      w.marginsByChannel,
      columns(w, w.channel),
      channelRows,
      w.marginsNone,
    )}</section>
<section class="card" aria-labelledby="by-account"><h2 id="by-account">${w.marginsByAccount}</h2>${table(
      w.marginsByAccount,
      columns(w, w.marginsAccount),
      accountRows,
      w.marginsNone,
    )}
${unpriced > 0 ? html`<p class="muted">${fmt(w.marginsUnpriced, { n: num(unpriced) })}</p>` : ''}</section>`;
    return c.render(w.marginsTitle, body, { scripts: ['uPlot.iife.min.js', 'chart.js'], styles: ['uPlot.min.css'] });
  });
}
