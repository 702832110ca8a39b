// WhatsApp conversations in the console: the replies page lists the newest 100 (one per user and business number)
// and /console/whatsapp/threads all of them, 100 a page; /console/whatsapp/threads/BUSINESS/USER shows one in time
// order, the user's messages and the account's with their delivery status (sent, delivered, read, failed), 200 a
// page with links to older pages. While the user's 24-hour window is open a reply box sends free text through the
// API's send_whatsapp_message operation; once it is closed the page says only a template may be sent and offers
// the business number's approved templates, sent through send_whatsapp_template. So the window, credit, pricing
// and tenancy rules are the API's. Every read names the signed-in account.
import { toNational } from '../../domain/phone.ts';
import { DELIVERY } from '../../domain/status.ts';
import { reasonOfReply, WA_REASON, WA_REASON_TEXT } from '../../domain/whatsapp-reasons.ts';
import { runOperation } from '../../operations/execute.ts';
import { sendWhatsappMessage, sendWhatsappTemplate } from '../../operations/whatsapp/wire-sends.ts';
import { MAX_WHATSAPP_TEXT } from '../../operations/whatsapp/send.ts';
import {
  listWhatsappNumbers,
  templatesOfNumber,
  whatsappThreadMessages,
  whatsappThreads,
  windowClosesAt,
  type ThreadCursor,
  type ThreadMessage,
  type ThreadsCursor,
  type WhatsappTemplate,
} from '../../store/read-models.ts';
import { when } from './format.ts';
import { csrfField, html, olderNewerPager, table, type Html, type HtmlValue, userText } from './html.ts';
import { fmt, type Messages } from './i18n.ts';
import { shownText } from './message-log.ts';
import type { ConsoleRouter, PageContext } from './router.ts';

const THREADS_SHOWN = 100;
const THREADS_PATH = '/console/whatsapp/threads';
const MESSAGES_SHOWN = 200;
/** The most variables the template picker offers (WhatsApp templates rarely take more than a handful). */
const MAX_VARIABLES = 10;

type Notice = { kind: 'ok' | 'error'; text: string };

/** A thread's path (its business number and user in the path, as the store keeps them). */
export function threadPath(business: string, user: string): string {
  return `/console/whatsapp/threads/${encodeURIComponent(business)}/${encodeURIComponent(user)}`;
}

/** A user as people read them: a phone in national form, or a business-scoped user id as it is. */
const userName = (user: string) => (/^\d+$/.test(user) ? toNational(user) : user);

/** A page of conversations in the address: `before=LASTAT.BUSINESS.USER`, the last conversation shown. */
function threadsCursorOf(text: string | undefined): ThreadsCursor | undefined {
  const m = /^(\d{1,15})\.(\d{1,20})\.(.{1,256})$/.exec(text ?? '');
  return m ? { lastAt: Number(m[1]), business: m[2], user: m[3] } : undefined;
}

/** A page of the account's conversations as a table, with the link to the next page when more remain. */
async function threadsTable(c: PageContext, after: ThreadsCursor | undefined): Promise<{ table: Html; count: number }> {
  const { t } = c;
  const tz = c.account.time_zone;
  const { threads, hasMore } = await whatsappThreads(c.app.store.db, Number(c.account.id), THREADS_SHOWN, after);
  const cells = threads.map((th): HtmlValue[] => [
    html`<a href="${threadPath(th.business, th.user)}"><span class="nowrap">${userName(th.user)}</span></a>`,
    html`<span class="nowrap">${toNational(th.business)}</span>`,
    html`<span class="nowrap">${when(th.lastAt, tz)}</span>`,
    th.windowClosesAt !== undefined && c.now < th.windowClosesAt
      ? fmt(t.waWindowOpenUntil, { time: when(th.windowClosesAt, tz) })
      : t.waWindowClosed,
  ]);
  const last = hasMore ? threads.at(-1) : undefined;
  const next = last ? `${last.lastAt}.${last.business}.${last.user}` : undefined;
  const pager = after || next ? olderNewerPager(t, THREADS_PATH, after !== undefined, next) : '';
  return {
    table: html`${table(t.waThreadsTitle, [t.waUser, t.waBusiness, t.waLast, t.waWindow], cells, t.waThreadsNone)}${pager}`,
    count: threads.length,
  };
}

/** The account's newest WhatsApp conversations, for the replies page (nothing when it has none). */
export async function threadsSection(c: PageContext): Promise<Html> {
  const { t } = c;
  const { table: shown, count } = await threadsTable(c, undefined);
  if (count === 0) return html``;
  return html`<section aria-labelledby="wa-threads"><h2 id="wa-threads">${t.waThreadsTitle}</h2>
<p class="muted">${t.waThreadsIntro}</p>${shown}</section>`;
}

/** /console/whatsapp/threads: every conversation of the account, 100 a page. */
async function threadsPage(c: PageContext) {
  const { t } = c;
  const { table: shown } = await threadsTable(c, threadsCursorOf(c.query.before));
  return c.render(
    t.waThreadsTitle,
    html`<p class="muted">${t.waThreadsIntro}</p>${shown}<p><a href="/console/inbound">${t.waAllReplies}</a></p>`,
  );
}

/** Where a message of the account stands: waiting, sent, delivered, read or failed. */
export function threadStatus(m: Extract<ThreadMessage, { direction: 'out' }>): keyof Messages {
  if (m.status === DELIVERY.WHATSAPP_READ) return 'waStatus_read';
  if (m.status === DELIVERY.WHATSAPP_DELIVERED || m.status === DELIVERY.DELIVERED) return 'waStatus_delivered';
  if (['failed', 'skipped', 'cancelled'].includes(m.state)) return 'waStatus_failed';
  if (m.status === DELIVERY.WHATSAPP_SENT) return 'waStatus_sent';
  if (m.state === 'done') return 'waStatus_failed';
  return 'waStatus_pending';
}

function messageCells(c: PageContext, m: ThreadMessage): HtmlValue[] {
  const { t } = c;
  const tz = c.account.time_zone;
  const time = html`<span class="nowrap">${when(m.at, tz)}</span>`;
  if (m.direction === 'in') return [time, t.waFromUser, userText(m.text, 'span', html` class="text"`), ''];
  const status = threadStatus(m);
  return [
    time,
    t.waFromYou,
    userText(shownText({ priority: m.priority, text: m.text }), 'span', html` class="text"`),
    html`<span class="wa-status status-${status.slice('waStatus_'.length)}">${t[status]}</span>${m.error && status === 'waStatus_failed' ? html` ${userText(m.error, 'span', html` class="muted"`)}` : ''}`,
  ];
}

/** A page's end in the address: `before=AT.i.ID` (the user's message) or `AT.o.ID` (the account's). */
function cursorOf(text: string | undefined): ThreadCursor | undefined {
  const m = /^(\d{1,15})\.([io])\.(\d{1,15})$/.exec(text ?? '');
  return m ? { at: Number(m[1]), direction: m[2] === 'i' ? 'in' : 'out', id: Number(m[3]) } : undefined;
}

/** A message's place in the address (`cursorOf` reads it back). */
const cursorText = (m: ThreadMessage) => `${m.at}.${m.direction === 'in' ? 'i' : 'o'}.${m.id}`;

interface ThreadForm {
  notice?: Notice;
  message?: string;
}

function replyBox(c: PageContext, action: string, closesAt: number, message: string): Html {
  const { t } = c;
  return html`<p class="notice ok" id="wa-window">${fmt(t.waWindowOpenNote, { time: when(closesAt, c.account.time_zone) })}</p>
<form method="post" action="${action}/reply" class="card">${csrfField(c.session.csrf)}
<div><label for="wa-reply">${t.waReplyLabel}</label><textarea id="wa-reply" name="message" rows="4" maxlength="${MAX_WHATSAPP_TEXT}" dir="auto" required>${message}</textarea></div>
<div class="buttons"><button type="submit">${t.waReplySend}</button></div></form>`;
}

function templatePicker(c: PageContext, action: string, templates: WhatsappTemplate[]): Html {
  const { t } = c;
  const approved = templates.filter((x) => x.status.toUpperCase() === 'APPROVED');
  if (approved.length === 0) return html`<p class="empty">${t.waNoTemplates}</p>`;
  const most = Math.min(MAX_VARIABLES, Math.max(0, ...approved.map((x) => Number(x.variables))));
  const options = approved.map(
    (x) =>
      html`<option value="${x.name}|${x.language}">${x.name} (${x.language}) · ${fmt(t.waTemplateVariables, { count: Number(x.variables) })}</option>`,
  );
  const inputs = Array.from(
    { length: most },
    (_, i) =>
      html`<div><label for="wa-var-${i + 1}">${fmt(t.waTemplateVariable, { n: i + 1 })}</label><input id="wa-var-${i + 1}" name="var${i + 1}" type="text" maxlength="1000" dir="auto"></div>`,
  );
  return html`<section aria-labelledby="wa-template"><h2 id="wa-template">${t.waTemplateTitle}</h2>
<form method="post" action="${action}/template" class="card">${csrfField(c.session.csrf)}
<div><label for="wa-template-id">${t.waTemplateLabel}</label><select id="wa-template-id" name="template">${options}</select></div>
${most > 0 ? html`<p class="muted">${t.waTemplateHint}</p>${inputs}` : ''}
<div class="buttons"><button type="submit">${t.waTemplateSend}</button></div></form></section>`;
}

async function threadPage(c: PageContext, form: ThreadForm = {}) {
  const { t } = c;
  const business = c.params.business;
  const user = c.params.user;
  const db = c.app.store.db;
  const accountId = Number(c.account.id);
  const numbers = await listWhatsappNumbers(db, accountId);
  const grant = numbers.find((n) => n.businessNumber === business);
  const cursor = cursorOf(c.query.before);
  const { messages, hasOlder } = await whatsappThreadMessages(
    db,
    accountId,
    { business, user },
    MESSAGES_SHOWN,
    cursor,
  );
  // Another account's thread (or none at all) reads as a page that does not exist.
  if (!grant && messages.length === 0) return c.render(t.notFound, html`<p>${t.notFoundText}</p>`, { code: 404 });
  const action = threadPath(business, user);
  const closesAt = await windowClosesAt(db, accountId, business, user);
  const open = closesAt !== undefined && c.now < closesAt;
  let composer: Html;
  if (!grant) composer = html``;
  else if (open) composer = replyBox(c, action, closesAt, form.message ?? '');
  else
    composer = html`<p class="notice error" id="wa-window">${closesAt === undefined ? t.waNeverWroteNote : t.waWindowClosedNote}</p>
${templatePicker(c, action, await templatesOfNumber(db, business, grant.carrier))}`;
  const body = html`<p class="muted">${fmt(t.waThreadMeta, { business: toNational(business) })}</p>
${table(
  t.waMessages,
  [t.logTime, t.waFrom, t.logText, t.waStatus],
  messages.map((m) => messageCells(c, m)),
  t.waThreadEmpty,
)}
${cursor || hasOlder ? olderNewerPager(t, action, cursor !== undefined, hasOlder ? cursorText(messages[0]) : undefined) : ''}
${composer}
<p><a href="/console/inbound">${t.waAllReplies}</a></p>`;
  return c.render(fmt(t.waThreadTitle, { user: userName(user) }), body, { notice: form.notice });
}

/** The refusal of a send in the page's words: the window's own note, else the reason's text. */
function refusalText(c: PageContext, reply: { status: number; reason?: unknown }): string {
  const reason = reasonOfReply(reply);
  if (reason === WA_REASON.NO_WINDOW) return c.t.waNeverWroteNote;
  if (reason === WA_REASON.WINDOW_CLOSED) return c.t.waWindowClosedNote;
  return fmt(c.t.waRefused, { reason: WA_REASON_TEXT[reason][c.lang] });
}

export function registerWhatsappThreads(r: ConsoleRouter): void {
  r.get(THREADS_PATH, (c) => threadsPage(c));
  r.get('/console/whatsapp/threads/:business/:user', (c) => threadPage(c));

  r.post('/console/whatsapp/threads/:business/:user/reply', async (c) => {
    const { business, user } = c.params;
    const message = (c.form.get('message') ?? '').slice(0, MAX_WHATSAPP_TEXT + 1);
    if (message.trim() === '') return threadPage(c, { notice: { kind: 'error', text: c.t.waReplyEmpty } });
    const reply = await runOperation(c.app, c.account, sendWhatsappMessage, {
      source: business,
      destination: user,
      message,
    });
    if (reply.status === 0) return c.redirect(threadPath(business, user), { ok: 'waReplySent' });
    return threadPage(c, { notice: { kind: 'error', text: refusalText(c, reply) }, message });
  });

  r.post('/console/whatsapp/threads/:business/:user/template', async (c) => {
    const { business, user } = c.params;
    const [templateId = '', language] = (c.form.get('template') ?? '').slice(0, 600).split('|');
    const variables: Record<string, string> = {};
    for (let i = 1; i <= MAX_VARIABLES; i++) {
      const value = (c.form.get(`var${i}`) ?? '').trim();
      if (value) variables[String(Object.keys(variables).length + 1)] = value.slice(0, 1000);
    }
    const reply = await runOperation(c.app, c.account, sendWhatsappTemplate, {
      source: business,
      destination: user,
      templateId,
      ...(language ? { language } : {}),
      dynamicFieldsObject: variables,
    });
    if (reply.status === 0) return c.redirect(threadPath(business, user), { ok: 'waTemplateSent' });
    return threadPage(c, { notice: { kind: 'error', text: refusalText(c, reply) } });
  });
}
