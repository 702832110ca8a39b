// Senders: the account's verified senders; a sender name asked of the operator with a reason (requestSender),
// with the requests and their outcome (a rejection shows the operator's reason); a number verified by SMS link or
// call (the API's verify_phone).
import { formatLong } from '../../domain/dates.ts';
import { MAX_SENDER_REASON } from '../../domain/sender-names.ts';
import { runOperation } from '../../operations/execute.ts';
import { requestSender, type SenderRefusal } from '../../operations/sender-requests.ts';
import { verifyPhone } from '../../operations/senders.ts';
import { accountSenderRequests, listVerifiedSenders, type SenderRequest } from '../../store/read-models.ts';
import { csrfField, html, table, type HtmlValue } from './html.ts';
import { fmt, type Messages } from './i18n.ts';
import type { ConsoleRouter, PageContext } from './router.ts';

type Notice = { kind: 'ok' | 'error'; text: string };

const REFUSALS: Partial<Record<SenderRefusal, keyof Messages>> = {
  invalid: 'senderNameInvalid',
  'no-reason': 'senderReasonMissing',
  reserved: 'senderNameReserved',
  verified: 'senderNameVerified',
  pending: 'senderNamePending',
};

function stateText(t: Messages, r: SenderRequest): string {
  if (r.state === 'approved') return t.senderStateApproved;
  if (r.state === 'rejected') return t.senderStateRejected;
  return t.senderStatePending;
}

async function sendersPage(
  c: PageContext,
  o: { notice?: Notice; phone?: string; name?: string; reason?: string } = {},
) {
  const { t, account } = c;
  const zone = account.time_zone;
  const senders = await listVerifiedSenders(c.app.store.db, account.id, false);
  const verified = senders.map((s): HtmlValue[] => [s.source, s.method, formatLong(Number(s.verified_at), zone)]);
  const requests = (await accountSenderRequests(c.app.store.db, account.id)).map((r): HtmlValue[] => [
    r.source,
    r.reason,
    stateText(t, r),
    r.decisionReason ?? '',
    formatLong(r.requestedAt, zone),
  ]);
  const ask = html`<form method="post" action="/console/senders/request" class="card">${csrfField(c.session.csrf)}<h2>${t.senderRequestTitle}</h2>
<label for="sender-name">${t.senderName}</label><input id="sender-name" name="source" required maxlength="11" pattern="[A-Za-z0-9]{1,11}" value="${o.name ?? ''}" aria-describedby="sender-name-hint">
<p id="sender-name-hint" class="muted">${t.senderNameHint}</p>
<label for="sender-reason">${t.senderReason}</label><textarea id="sender-reason" name="reason" required maxlength="${MAX_SENDER_REASON}">${o.reason ?? ''}</textarea>
<button type="submit">${t.senderRequestSend}</button></form>`;
  const verify = html`<form method="post" action="/console/senders" class="card">${csrfField(c.session.csrf)}<h2>${t.senderVerify}</h2>
<label for="sender-phone">${t.phone}</label><input id="sender-phone" name="phone" required maxlength="20" inputmode="tel" value="${o.phone ?? ''}" aria-describedby="sender-hint">
<p id="sender-hint" class="muted">${t.senderHint}</p><button type="submit">${t.senderSend}</button></form>`;
  return c.render(
    t.navSenders,
    html`${table(t.navSenders, [t.sender, t.senderMethod, t.senderVerifiedAt], verified, t.sendersNone)}
<h2>${t.senderRequests}</h2>${table(t.senderRequests, [t.senderName, t.senderReason, t.senderState, t.senderDecisionReason, t.senderRequestedAt], requests, t.senderRequestsNone)}
${ask}${verify}`,
    { notice: o.notice },
  );
}

export function registerSenders(r: ConsoleRouter): void {
  r.get('/console/senders', (c) => sendersPage(c));

  r.post('/console/senders', async (c) => {
    const phone = (c.form.get('phone') ?? '').trim().slice(0, 20);
    const reply = await runOperation(c.app, c.account, verifyPhone, { phone });
    return sendersPage(c, {
      notice: { kind: reply.status === 0 ? 'ok' : 'error', text: String(reply.message) },
      phone: reply.status === 0 ? '' : phone,
    });
  });

  r.post('/console/senders/request', async (c) => {
    const source = (c.form.get('source') ?? '').trim().slice(0, 40);
    const reason = (c.form.get('reason') ?? '').slice(0, MAX_SENDER_REASON);
    const reply = await runOperation(c.app, c.account, requestSender, { source, reason });
    if (reply.status === 0) return c.redirect('/console/senders', { ok: 'senderRequested' });
    const refused = (reply as { refused?: SenderRefusal }).refused;
    const words = refused ? REFUSALS[refused] : undefined;
    return sendersPage(c, {
      notice: { kind: 'error', text: words ? fmt(c.t[words], { name: source }) : String(reply.message) },
      name: source,
      reason,
    });
  });
}
