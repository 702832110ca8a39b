// Replies at /console/inbound: the account's inbound messages newest first (sender, time, the number they came
// to, the campaign they answer where known), 50 a page, searched by part of the number or of the text; a reply
// that blocked its sender (a removal keyword) says so. Above them, the account's WhatsApp conversations
// (whatsapp-threads.ts).
import { toNational } from '../../domain/phone.ts';
import { inboundPage, type InboundCursor } from '../../store/read-models.ts';
import { when } from './format.ts';
import { html, table, type HtmlValue, userText } from './html.ts';
import type { ConsoleRouter, PageContext } from './router.ts';
import { threadPath, threadsSection } from './whatsapp-threads.ts';

const PER_PAGE = 50;

function cursorOf(text: string | undefined): InboundCursor | undefined {
  const m = /^(\d{1,15})\.(\d{1,15})$/.exec(text ?? '');
  return m ? { receivedAt: Number(m[1]), id: Number(m[2]) } : undefined;
}

async function repliesPage(c: PageContext) {
  const { t } = c;
  const tz = c.account.time_zone;
  const search = (c.query.q ?? '').trim().slice(0, 100);
  const cursor = cursorOf(c.query.before);
  const rows = await inboundPage(c.app.store.db, c.account.id, {
    search: search || undefined,
    cursor,
    limit: PER_PAGE,
  });
  const cells = rows.map((r): HtmlValue[] => [
    html`<span class="nowrap">${when(r.received_at, tz)}</span>`,
    r.channel === 'whatsapp'
      ? html`<a href="${threadPath(r.dest, r.phone)}" class="nowrap">${toNational(r.phone)}</a> <span class="badge">${t.logChannel_whatsapp}</span>`
      : html`<span class="nowrap">${toNational(r.phone)}</span>`,
    toNational(r.dest),
    html`${userText(r.text, 'span', html` class="text"`)}${r.blocked_by_reply ? html` <span class="badge">${t.inboundBlocked}</span>` : ''}`,
    r.campaign_id === null
      ? ''
      : html`<a href="/console/campaigns/${r.campaign_id}">${r.campaign_name ? `${r.campaign_id} · ${r.campaign_name}` : r.campaign_id}</a>`,
  ]);
  const q = search ? `q=${encodeURIComponent(search)}&` : '';
  const last = rows.at(-1);
  const pager = html`<nav class="pager" aria-label="${t.pages}">${cursor ? html`<a href="/console/inbound${search ? `?q=${encodeURIComponent(search)}` : ''}">${t.newest}</a>` : ''}
${rows.length === PER_PAGE && last ? html`<a href="/console/inbound?${q}before=${last.received_at}.${last.id}">${t.older}</a>` : ''}</nav>`;
  const form = html`<form method="get" action="/console/inbound" class="row" role="search">
<div><label for="q">${t.inboundSearch}</label><input id="q" name="q" type="search" value="${search}" maxlength="100"></div>
<button type="submit">${t.search}</button>${search ? html`<a href="/console/inbound">${t.clearSearch}</a>` : ''}</form>`;
  // The WhatsApp conversations come first, on the first page of an unsearched list only.
  const threads = search || cursor ? html`` : await threadsSection(c);
  const heading = threads.toString() ? html`<h2>${t.inboundTitle}</h2>` : '';
  const body = html`${threads}${heading}<p class="muted">${t.inboundIntro}</p>${form}${table(
    t.inboundTitle,
    [t.logTime, t.inboundFrom, t.inboundTo, t.logText, t.inboundAnswers],
    cells,
    search ? t.messagesNoMatch : t.inboundNone,
  )}${pager}`;
  return c.render(t.inboundTitle, body);
}

export function registerInbound(r: ConsoleRouter): void {
  r.get('/console/inbound', (c) => repliesPage(c));
}
