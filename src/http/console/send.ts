// Sending from the console at /console/send: an SMS to typed or pasted numbers and/or a contact list (with its
// dynamic fields), from a verified sender, optionally scheduled, with a short link and the unsubscribe line or
// link. "Preview" runs the API's sms operation as /api/test does (dry run, rolled back: nothing is sent or
// charged) and shows the recipients, parts and price; "Send" runs the same operation for real.
import { countParts } from '../../domain/encoding.ts';
import { hebrewMessage } from '../../domain/status.ts';
import { sms } from '../../operations/sms.ts';
import { listContactLists, listVerifiedSenders } from '../../store/read-models.ts';
import type { Rejected } from '../../operations/send/rejections.ts';
import { readDayTime } from './date-input.ts';
import { num } from './format.ts';
import { leftOut } from './send-left-out.ts';
import { csrfField, html, type Html } from './html.ts';
import { fmt, type Messages } from './i18n.ts';
import { runOperation } from '../../operations/execute.ts';
import type { ConsoleRouter, PageContext } from './router.ts';

const FIELDS = ['phones', 'list', 'dynamic', 'source', 'message', 'link', 'unsubscribe', 'timing', 'name'] as const;
type SendForm = Partial<Record<(typeof FIELDS)[number], string>>;

function readForm(form: URLSearchParams): SendForm {
  const out: SendForm = {};
  for (const f of FIELDS) {
    const v = form.get(f);
    if (v !== null && v.trim() !== '') out[f] = v.slice(0, 5000);
  }
  if (out.phones) out.phones = out.phones.slice(0, 2_000_000);
  return out;
}

/** The numbers typed or pasted, one per line or separated by commas, semicolons or spaces. */
const typedPhones = (f: SendForm) => (f.phones ?? '').split(/[\s,;]+/).filter(Boolean);

const two = (n: number) => String(n).padStart(2, '0');

/**
 * The sms operation's request for the form (`timing` typed as dd/mm/yyyy hh:mm, or from a native picker, in the
 * account's time zone); undefined when the time is not a date.
 */
function smsDoc(f: SendForm): Record<string, unknown> | undefined {
  const phones = typedPhones(f);
  const destinations: Record<string, unknown> = {};
  if (phones.length) destinations.phone = phones;
  if (f.list) destinations.cl_id = [f.list];
  const doc: Record<string, unknown> = { source: f.source ?? '', message: f.message ?? '', destinations };
  if (f.dynamic === '1') doc.add_dynamic = '1';
  if (f.unsubscribe === '2' || f.unsubscribe === '3') doc.add_unsubscribe = f.unsubscribe;
  if (f.name) doc.campaign_name = f.name;
  if (f.link) doc.links = { link: [{ $: { id: 'link' }, _: f.link }] };
  if (f.timing) {
    const at = readDayTime(f.timing);
    if (!at) return undefined;
    doc.timing = `${two(at.day)}/${two(at.month)}/${two(at.year % 100)} ${two(at.hour)}:${two(at.minute)}`;
  }
  return doc;
}

/**
 * The message's characters, parts and alphabet, counted here for the text as it stands and again in the browser
 * as it is typed (assets/counter.js, with the same countParts).
 */
function counter(t: Messages, text: string): Html {
  const c = countParts(text);
  const words = fmt(c.parts === 1 ? t.counterLiveOne : t.counterLive, {
    chars: num(c.units),
    parts: num(c.parts),
    encoding: t[`counter_${c.encoding}`],
  });
  return html`<p class="counter"><output id="send-counter" for="send-message" aria-live="polite" data-one="${t.counterLiveOne}" data-many="${t.counterLive}" data-gsm7="${t.counter_gsm7}" data-ucs2="${t.counter_ucs2}" data-encoding="${c.encoding}" data-parts="${c.parts}" data-units="${c.units}">${words}</output></p>
<p id="send-counter-hint" class="muted">${t.counterHint}</p>`;
}

async function sendPage(c: PageContext, f: SendForm = {}, o: { preview?: Html; error?: string } = {}) {
  const { t } = c;
  const db = c.app.store.db;
  const [senders, lists] = await Promise.all([
    listVerifiedSenders(db, c.account.id, false),
    listContactLists(db, c.account.id),
  ]);
  const option = (value: string, label: string, current: string | undefined) =>
    html`<option value="${value}"${current === value ? html` selected` : ''}>${label}</option>`;
  const hidden = FIELDS.filter((k) => f[k] !== undefined).map(
    (k) => html`<input type="hidden" name="${k}" value="${f[k]}">`,
  );
  const confirm = o.preview
    ? html`<section class="card" aria-labelledby="preview-title"><h2 id="preview-title">${t.sendPreviewTitle}</h2>${o.preview}
<form method="post" action="/console/send">${csrfField(c.session.csrf)}${hidden}<input type="hidden" name="action" value="send">
<button type="submit">${t.sendNow}</button></form></section>`
    : '';
  const form = html`<form method="post" action="/console/send" class="card">${csrfField(c.session.csrf)}<input type="hidden" name="action" value="preview">
<label for="send-phones">${t.sendPhones}</label><textarea id="send-phones" name="phones" rows="4" aria-describedby="send-phones-hint">${f.phones ?? ''}</textarea>
<p id="send-phones-hint" class="muted">${t.sendPhonesHint}</p>
<label for="send-list">${t.sendList}</label><select id="send-list" name="list">${option('', t.sendNoList, f.list)}${lists.map((l) => option(String(l.id), `${l.name} (${num(l.contact_count)})`, f.list))}</select>
<div class="check"><input type="checkbox" id="send-dynamic" name="dynamic" value="1"${f.dynamic === '1' ? html` checked` : ''}><label for="send-dynamic">${t.sendDynamic}</label></div>
<label for="send-source">${t.sender}</label><select id="send-source" name="source" required>${senders.map((s) => option(s.source, s.source, f.source))}</select>
${senders.length ? '' : html`<p class="muted"><a href="/console/senders">${t.sendNoSender}</a></p>`}
<label for="send-message">${t.sendMessage}</label><textarea id="send-message" name="message" rows="4" required maxlength="5000" dir="auto" aria-describedby="send-counter-hint">${f.message ?? ''}</textarea>
${counter(t, f.message ?? '')}
<label for="send-link">${t.sendLink}</label><input id="send-link" name="link" type="url" maxlength="2000" placeholder="https://" value="${f.link ?? ''}" aria-describedby="send-link-hint">
<p id="send-link-hint" class="muted">${t.sendLinkHint}</p>
<label for="send-unsub">${t.sendUnsubscribe}</label><select id="send-unsub" name="unsubscribe">${option('', t.sendUnsubNone, f.unsubscribe)}${option('2', t.sendUnsubReply, f.unsubscribe)}${option('3', t.sendUnsubLink, f.unsubscribe)}</select>
<label for="send-timing">${t.sendTiming}</label><input id="send-timing" name="timing" type="text" inputmode="numeric" maxlength="16" autocomplete="off" placeholder="dd/mm/yyyy hh:mm" value="${f.timing ?? ''}" aria-describedby="send-timing-hint">
<p id="send-timing-hint" class="muted">${fmt(t.dateTimeHint, { zone: c.account.time_zone })}</p>
<label for="send-name">${t.sendName}</label><input id="send-name" name="name" maxlength="100" dir="auto" value="${f.name ?? ''}">
<button type="submit">${t.sendPreview}</button></form>`;
  return c.render(t.sendTitle, html`${confirm}${form}`, {
    scripts: ['encoding.js', 'counter.js'],
    code: o.error ? 400 : 200,
    notice: o.error ? { kind: 'error', text: o.error } : undefined,
  });
}

export function registerSend(r: ConsoleRouter): void {
  r.get('/console/send', (c) => sendPage(c));
  r.post('/console/send', async (c) => {
    const { t } = c;
    const f = readForm(c.form);
    const send = c.form.get('action') === 'send';
    const doc = smsDoc(f);
    if (!doc) return sendPage(c, f, { error: t.sendTimingBad });
    const reply = await runOperation(c.app, c.account, sms, doc, { dryRun: !send });
    if (reply.status !== 0) {
      const message = String(reply.message ?? '');
      return sendPage(c, f, { error: c.lang === 'he' ? hebrewMessage(Number(reply.status), message) : message });
    }
    if (send) return c.redirect(`/console/campaigns/${reply.campaign_id}`, { ok: 'sendDone' });
    const rejected = Number(reply.rejected_total ?? 0);
    const preview = html`<ul class="stats">
<li>${t.recipients}<b>${num(Number(reply.recipients))}</b></li>
<li>${t.parts}<b>${num(Number(reply.parts))}</b></li>
<li>${t.sendPrice}<b>${fmt(t.sendCredits, { credits: num(Number(reply.credits)) })}${reply.international_cost ? ` + ₪${reply.international_cost}` : ''}</b></li>
${rejected ? html`<li>${t.sendRejected}<b>${num(rejected)}</b></li>` : ''}</ul>
${reply.timing ? html`<p>${fmt(t.campaignScheduledFor, { at: String(reply.timing) })}</p>` : ''}
${await leftOut(c, typedPhones(f), (reply.rejected ?? []) as Rejected[], rejected)}
<p class="muted">${t.sendPreviewNote}</p>`;
    return sendPage(c, f, { preview });
  });
}
