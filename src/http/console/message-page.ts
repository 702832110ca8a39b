// One message's page at /console/messages/:id: the message in full (its whole text, status, carrier and error),
// then what happened to it in order: accepted, scheduled, submitted to a carrier (each part with the carrier's
// id), each part's receipt and the delivery status, and each `dlr` push of it with every attempt to deliver it.
// Only the signed-in account's own messages: any other id is "not found".
import { toNational } from '../../domain/phone.ts';
import { deliveryStatusText } from '../../domain/status.ts';
import { type MessageHistory, messageHistory } from '../../store/read-models.ts';
import { num, when } from './format.ts';
import { html, type HtmlValue, table, userText } from './html.ts';
import { fmt, type Lang, type Messages } from './i18n.ts';
import { channelOf, outcomeOf, shownText, statusWords } from './message-log.ts';
import { whole, type ConsoleRouter, type PageContext } from './router.ts';

interface Event {
  at: number | null;
  /** Shown after the events before it in the list even when dated earlier (what a receipt set off). */
  follows?: true;
  what: string;
  details: HtmlValue;
}

function statusMeaning(lang: Lang, status: number): string {
  const text = deliveryStatusText(status);
  return `${status} ${lang === 'he' ? text.he : text.en}`;
}

function pushState(t: Messages, state: string): string {
  const key = `pushState_${state}` as keyof Messages;
  return Object.hasOwn(t, key) ? t[key] : state;
}

/** The message's events, oldest first (those of an unknown time after the known ones they follow). */
function events(t: Messages, lang: Lang, h: MessageHistory): Event[] {
  const m = h.message;
  const out: Event[] = [
    {
      at: m.created_at,
      what: t.evAccepted,
      details: fmt(t.evAcceptedDetails, {
        campaign: m.campaign_id,
        parts: num(m.parts),
        credits: num(m.cost_credits),
      }),
    },
  ];
  if (m.scheduled_at !== null) out.push({ at: m.scheduled_at, what: t.evScheduled, details: '' });
  const carriers = [...new Set(h.parts.map((p) => p.carrier))];
  for (const carrier of carriers) {
    const parts = h.parts.filter((p) => p.carrier === carrier);
    out.push({
      at: parts[0].created_at,
      what: fmt(t.evSubmitted, { carrier }),
      details: parts.map(
        (p, i) =>
          html`${i > 0 ? html`<br>` : ''}${fmt(t.evSubmittedPart, { part: p.part_index + 1, id: p.carrier_message_id })}`,
      ),
    });
  }
  if (carriers.length === 0 && m.submitted_at !== null && m.carrier) {
    out.push({ at: m.submitted_at, what: fmt(t.evSubmitted, { carrier: m.carrier }), details: '' });
  }
  for (const p of h.parts) {
    if (p.part_status === null) continue;
    out.push({
      at: null,
      what: fmt(t.evReceipt, { part: p.part_index + 1 }),
      details: statusMeaning(lang, p.part_status),
    });
  }
  if (m.status !== null) {
    const refused = m.state === 'failed' && m.error;
    out.push({
      at: m.status_at,
      follows: true,
      what: refused ? t.evRefused : t.evStatus,
      details: html`<span class="status-${outcomeOf(m)}">${statusWords(t, lang, m)}</span>${m.error ? html`<br>${m.error}` : ''}`,
    });
  }
  for (const push of h.pushes) {
    out.push({
      at: push.created_at,
      follows: true,
      what: fmt(t.evPush, { status: push.status }),
      details: fmt(t.evPushDetails, { date: push.date, state: pushState(t, push.state) }).replace(
        /^/,
        `${statusMeaning(lang, push.status)}. `,
      ),
    });
    for (const a of push.attempts) {
      out.push({
        at: a.at,
        follows: true,
        what: t.evPushAttempt,
        details:
          a.http_status !== null
            ? fmt(t.evPushAnswer, { code: a.http_status, ms: num(a.latency_ms) })
            : fmt(t.evPushNoAnswer, { ms: num(a.latency_ms), error: a.error ?? '' }),
      });
    }
  }
  // Stable: events of the same time keep the order they happen in; a receipt without a time follows its submit.
  // The status and its pushes follow what led to them: a receipt that came before its submit was recorded (a
  // carrier answers fast, the dispatcher records its batch after) is dated before the submit, yet shown after it.
  let last = 0;
  const timed = out.map((e) => {
    const key = e.at === null ? last : e.follows ? Math.max(e.at, last) : e.at;
    last = key;
    return { e, key };
  });
  return timed.sort((a, b) => a.key - b.key).map((x) => x.e);
}

async function messagePage(c: PageContext) {
  const { t } = c;
  const id = whole(c.params.id);
  const h = id === undefined ? undefined : await messageHistory(c.app.store.db, c.account.id, id);
  if (!h) return c.render(t.notFound, html`<p>${t.notFoundText}</p>`, { code: 404 });
  const m = h.message;
  const tz = c.account.time_zone;
  const fact = (label: string, value: HtmlValue) => html`<dt>${label}</dt><dd>${value}</dd>`;
  const summary = html`<section class="card" aria-labelledby="msg-summary"><h2 id="msg-summary">${t.msgSummary}</h2><dl class="facts">
${fact(t.logTime, html`<span class="nowrap">${when(m.created_at, tz)}</span>`)}
${fact(t.phone, html`<span class="nowrap" dir="ltr">${toNational(m.phone)}</span>`)}
${fact(t.logSender, userText(m.source))}
${fact(t.logChannel, t[`logChannel_${channelOf(m)}`])}
${fact(t.campaign, html`<a href="/console/campaigns/${m.campaign_id}">${m.campaign_id}</a>${m.campaign_name ? html` · ${userText(m.campaign_name)}` : ''}`)}
${fact(t.parts, num(m.parts))}
${fact(t.logCredits, num(m.cost_credits))}
${fact(t.logStatus, html`<span class="status-${outcomeOf(m)}">${statusWords(t, c.lang, m)}</span>`)}
${fact(t.logCarrier, m.carrier ?? '')}
${fact(t.logError, userText(m.error ?? ''))}
</dl><h3>${t.msgWholeText}</h3>${userText(shownText(m), 'blockquote', html` class="message-text"`)}</section>`;
  const rows = events(t, c.lang, h).map((e): HtmlValue[] => [
    html`<span class="nowrap">${e.at === null ? t.msgNoTime : when(e.at, tz)}</span>`,
    e.what,
    e.details,
  ]);
  const body = html`<p><a href="/console/messages">${t.msgBack}</a></p>${summary}
<h2>${t.msgEvents}</h2>${table(t.msgEventsCaption, [t.msgEventTime, t.msgEvent, t.msgEventDetails], rows, '')}`;
  return c.render(fmt(t.msgTitle, { id: m.id }), body);
}

export function registerMessagePage(r: ConsoleRouter): void {
  r.get('/console/messages/:id', (c) => messagePage(c));
}
