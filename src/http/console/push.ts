// Push URLs: per type the URL, its state (and why it was disabled), the recent delivery log with response
// codes; register (the API's push_url), disable, re-enable, delete; the signing secret (shown once).
import { formatEvent } from '../../domain/dates.ts';
import { PUSH_TYPES } from '../../domain/push-fields.ts';
import {
  clearPushSigning,
  deletePushUrl,
  disablePushUrl,
  enablePushUrl,
  newPushSecret,
  testPushUrl,
} from '../../operations/account-access.ts';
import { pushUrl } from '../../operations/push.ts';
import { hasPushSecret, listPushAttempts, listPushRegistrations } from '../../store/read-models.ts';
import type { PushType } from '../../store/schema/push.ts';
import { actionForm, csrfField, html, table, type Html } from './html.ts';
import { fmt } from './i18n.ts';
import { runOperation } from '../../operations/execute.ts';
import type { ConsoleRouter, PageContext } from './router.ts';

const RECENT = 10;

function pushType(text: string | null): PushType | undefined {
  return (PUSH_TYPES as readonly string[]).includes(text ?? '') ? (text as PushType) : undefined;
}

async function pushPage(c: PageContext, o: { error?: string; secret?: string; urls?: Record<string, string> } = {}) {
  const { t, account } = c;
  const db = c.app.store.db;
  const csrf = c.session.csrf;
  const at = (ms: number | null) => (ms === null ? '' : formatEvent(Number(ms), account.time_zone));
  const regs = await listPushRegistrations(db, account.id);
  const sections: Html[] = [];
  for (const type of PUSH_TYPES) {
    const reg = regs.find((r) => r.type === type);
    const id = `push-${type}`;
    let inner: Html;
    if (!reg) {
      inner = html`<form method="post" action="/console/push/register">${csrfField(csrf)}<input type="hidden" name="type" value="${type}">
<label for="${id}-url">${fmt(t.pushUrlFor, { type })}</label><input id="${id}-url" name="url" type="url" required maxlength="2000" placeholder="https://" value="${o.urls?.[type] ?? ''}">
<button type="submit">${t.pushRegister}</button></form>`;
    } else {
      const attempts = await listPushAttempts(db, reg.id, RECENT);
      // A registered URL whose last delivery rounds failed is failing, not delivering.
      const state =
        reg.state !== 'registered'
          ? fmt(t.pushDisabled, { at: at(reg.disabled_at), reason: reg.disabled_reason ?? '' })
          : reg.consecutive_failures > 0
            ? fmt(t.pushFailing, { failures: reg.consecutive_failures, at: at(reg.last_failure_at) })
            : t.pushRegistered;
      const actions = [
        reg.state === 'registered'
          ? actionForm('/console/push/test', csrf, t.pushTest, { type })
          : html`<p class="muted">${t.pushTestPaused}</p>`,
        reg.state === 'registered'
          ? actionForm('/console/push/disable', csrf, t.pushDisable, { type })
          : actionForm('/console/push/enable', csrf, t.pushEnable, { type }),
        actionForm(
          '/console/push/delete',
          csrf,
          t.delete,
          { type },
          { confirm: fmt(t.pushDeleteConfirm, { type }), danger: true },
        ),
      ];
      const log = table(
        fmt(t.pushLog, { type }),
        [t.pushWhen, t.pushCode, t.pushLatency, t.pushError],
        attempts.map((a) => [at(a.at), a.http_status ?? '-', `${a.latency_ms} ms`, a.error ?? '']),
        t.pushNoAttempts,
      );
      inner = html`<p class="mono">${reg.url}</p><p><strong>${state}</strong></p>
<p class="muted">${fmt(t.pushCounts, { pending: reg.pending_events, failures: reg.consecutive_failures })}</p>${actions}
<h3>${fmt(t.pushLog, { type })}</h3>${log}`;
    }
    sections.push(
      html`<section class="card" aria-labelledby="${id}"><h2 id="${id}"><code>${type}</code></h2>${inner}</section>`,
    );
  }
  const signed = await hasPushSecret(db, account.id);
  const secret = html`<section class="card" aria-labelledby="push-secret"><h2 id="push-secret">${t.pushSecret}</h2>
<p>${signed ? t.pushSigned : t.pushUnsigned}</p>
${
  o.secret
    ? html`<p class="warn">${t.pushSecretOnce}</p><label for="secret-value">${t.pushSecret}</label><input id="secret-value" readonly class="mono" value="${o.secret}">
<button type="button" data-copy="secret-value" data-copied="${t.copied}" hidden>${t.copy}</button>`
    : ''
}
${actionForm('/console/push/secret', csrf, signed ? t.pushSecretReplace : t.pushSecretNew, {}, signed ? { confirm: t.pushSecretReplaceConfirm } : {})}
${signed ? actionForm('/console/push/secret/clear', csrf, t.pushSecretClear, {}, { danger: true }) : ''}</section>`;
  return c.render(t.navPush, html`<p>${t.pushIntro}</p>${sections}${secret}`, {
    notice: o.error ? { kind: 'error', text: o.error } : undefined,
  });
}

export function registerPush(r: ConsoleRouter): void {
  r.get('/console/push', (c) => pushPage(c));

  r.post('/console/push/register', async (c) => {
    const type = c.form.get('type') ?? '';
    const url = c.form.get('url') ?? '';
    const reply = await runOperation(c.app, c.account, pushUrl, { type, url });
    if (reply.status !== 0) return pushPage(c, { error: String(reply.message), urls: { [type]: url.slice(0, 2000) } });
    return c.redirect('/console/push', { ok: 'pushRegisteredOk' });
  });

  // A test event goes the way of every event: queued for the registration, then signed and POSTed by the
  // pusher, its outcome recorded in the delivery log (and counted like any delivery, failures included).
  r.post('/console/push/test', async (c) => {
    const type = pushType(c.form.get('type'));
    const tested = type && (await runOperation(c.app, c.account, testPushUrl, { type }));
    if (!tested || tested.outcome === 'missing' || tested.outcome === undefined)
      return c.redirect('/console/push', { error: 'pushMissing' });
    if (tested.outcome === 'paused') return c.redirect('/console/push', { error: 'pushTestPaused' });
    return c.redirect('/console/push', { ok: 'pushTestOk' });
  });

  r.post('/console/push/disable', async (c) => {
    const type = pushType(c.form.get('type'));
    const done =
      type && (await runOperation(c.app, c.account, disablePushUrl, { type, reason: c.t.pushPausedReason })).outcome;
    return c.redirect(
      '/console/push',
      done === 'disabled' || done === 'already-disabled' ? { ok: 'pushDisabledOk' } : { error: 'pushMissing' },
    );
  });

  r.post('/console/push/enable', async (c) => {
    const type = pushType(c.form.get('type'));
    const done = type && (await runOperation(c.app, c.account, enablePushUrl, { type })).outcome;
    return c.redirect(
      '/console/push',
      done === 'enabled' || done === 'already-registered' ? { ok: 'pushEnabledOk' } : { error: 'pushMissing' },
    );
  });

  r.post('/console/push/delete', async (c) => {
    const type = pushType(c.form.get('type'));
    const done = type && (await runOperation(c.app, c.account, deletePushUrl, { type })).done;
    return c.redirect('/console/push', done ? { ok: 'pushDeletedOk' } : { error: 'pushMissing' });
  });

  r.post('/console/push/secret', async (c) => {
    const made = await runOperation(c.app, c.account, newPushSecret, {});
    if (made.secret === undefined) return pushPage(c, { error: made.message });
    return pushPage(c, { secret: made.secret });
  });

  r.post('/console/push/secret/clear', async (c) => {
    await runOperation(c.app, c.account, clearPushSigning, {});
    return c.redirect('/console/push', { ok: 'pushSecretCleared' });
  });
}
