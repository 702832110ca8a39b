// /admin/senders: the sender names customers asked for from their console, waiting first (approve, or reject
// with a reason the customer sees), the decided ones with who decided; every verified sender (those the operator
// verified with `yona admin verify-sender` among them); and the reserved names no customer may request.
import { approveSender, rejectSender, setReservedSender } from '../../operations/sender-requests.ts';
import { runForOperator } from '../../operations/execute.ts';
import {
  allSenderRequests,
  allVerifiedSenders,
  reservedSenderPatterns,
  type SenderRequest,
} from '../../store/read-models.ts';
import { when } from '../console/format.ts';
import { actionForm, csrfField, html, table, type HtmlValue } from '../console/html.ts';
import { whole } from '../console/router.ts';
import type { AdminWords } from './i18n.ts';
import type { AdminContext, AdminRouter, Notice } from './router.ts';

function stateWord(w: AdminWords, r: SenderRequest): string {
  return r.state === 'approved' ? w.senderApproved : r.state === 'rejected' ? w.senderRejected : w.senderPending;
}

async function sendersPage(c: AdminContext, notice?: Notice) {
  const { w } = c;
  const zone = c.app.config.defaultTimeZone;
  const csrf = c.session.csrf;
  const requests = await allSenderRequests(c.app.store.db);
  const rows = requests.map((r): HtmlValue[] => [
    `#${r.id}`,
    r.username,
    r.source,
    html`<span dir="auto">${r.reason}</span>`,
    when(r.requestedAt, zone),
    stateWord(w, r),
    r.state === 'pending'
      ? html`${actionForm('/admin/senders/approve', csrf, w.senderApprove, { id: String(r.id) })}
<form method="post" action="/admin/senders/reject" class="inline">${csrfField(csrf)}<input type="hidden" name="id" value="${String(r.id)}"><label for="why-${String(r.id)}">${w.senderRejectReason}</label><input id="why-${String(r.id)}" name="reason" required maxlength="500"><button type="submit" class="danger">${w.senderReject}</button></form>`
      : html`<span dir="auto">${r.decisionReason ?? ''}</span> (${r.decidedBy ?? ''}, ${when(r.decidedAt ?? 0, zone)})`,
  ]);
  const verified = (await allVerifiedSenders(c.app.store.db)).map((v): HtmlValue[] => [
    v.username,
    v.source,
    v.method,
    when(v.verifiedAt, zone),
  ]);
  const reserved = await reservedSenderPatterns(c.app.store.db);
  const reservedRows = reserved.map((p): HtmlValue[] => [
    html`<code>${p}</code>`,
    actionForm('/admin/senders/reserved', csrf, w.senderUnreserve, { pattern: p, reserved: '0' }),
  ]);
  const reserve = html`<form method="post" action="/admin/senders/reserved" class="card">${csrfField(csrf)}
<input type="hidden" name="reserved" value="1"><label for="reserve-name">${w.senderReserveName}</label><input id="reserve-name" name="pattern" required maxlength="40" aria-describedby="reserve-hint">
<p id="reserve-hint" class="muted">${w.senderReserveHint}</p><button type="submit">${w.senderReserve}</button></form>`;
  return c.render(
    w.navSenders,
    html`${table(w.senderRequestsTitle, [w.senderId, w.senderAccount, w.senderName, w.senderReason, w.senderAsked, w.senderState, w.senderDecision], rows, w.senderRequestsNone)}
<h2>${w.senderVerifiedTitle}</h2>${table(w.senderVerifiedTitle, [w.senderAccount, w.senderName, w.senderMethod, w.senderVerifiedAt], verified, w.senderVerifiedNone)}
<h2>${w.senderReservedTitle}</h2>${table(w.senderReservedTitle, [w.senderPattern, w.senderActions], reservedRows, w.senderReservedNone)}${reserve}`,
    { notice },
  );
}

/** A refused change: the runner's message, on the page again. */
const refused = (c: AdminContext, message: string) => sendersPage(c, { kind: 'error', text: message });

export function registerAdminSenders(r: AdminRouter): void {
  r.get('/admin/senders', (c) => sendersPage(c));

  r.post('/admin/senders/approve', async (c) => {
    const id = whole(c.form.get('id') ?? undefined) ?? -1;
    const reply = await runForOperator(c.app, approveSender, { id, by: c.operator.name });
    return reply.status === 0
      ? c.redirect('/admin/senders', { ok: 'senderApprovedNotice' })
      : refused(c, reply.message);
  });

  r.post('/admin/senders/reject', async (c) => {
    const id = whole(c.form.get('id') ?? undefined) ?? -1;
    const reason = (c.form.get('reason') ?? '').slice(0, 500);
    const reply = await runForOperator(c.app, rejectSender, { id, by: c.operator.name, reason });
    return reply.status === 0
      ? c.redirect('/admin/senders', { ok: 'senderRejectedNotice' })
      : refused(c, reply.message);
  });

  r.post('/admin/senders/reserved', async (c) => {
    const reserved = c.form.get('reserved') === '1';
    const reply = await runForOperator(c.app, setReservedSender, { pattern: c.form.get('pattern') ?? '', reserved });
    return reply.status === 0
      ? c.redirect('/admin/senders', { ok: 'senderReservedNotice' })
      : refused(c, reply.message);
  });
}
