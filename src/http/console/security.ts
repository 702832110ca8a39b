// The customer's own security at /console/security: change the password (the current one first; every other
// session of the account ends), and optional two-factor sign-in with an authenticator app (RFC 6238): turned
// on by confirming a first code (ten recovery codes are then shown once), turned off with the password.
import { passwordProblem } from '../../domain/accounts.ts';
import { verifyPassword } from '../../domain/password.ts';
import { newTotpSecret, totpStep, totpUri } from '../../domain/totp.ts';
import { sealingKey } from '../../secret-key.ts';
import { disableTwoFactor, enableTwoFactor, setConsolePassword } from '../../operations/account-security.ts';
import { runOperation } from '../../operations/execute.ts';
import { securityState } from '../../store/console-security.ts';
import { csrfField, html, type Html } from './html.ts';
import { fmt } from './i18n.ts';
import { qrSvg } from './qr-code.ts';
import { refusal } from './login.ts';
import type { ConsoleRouter, PageContext } from './router.ts';
import { openPending, sealPending } from './two-factor.ts';

type Notice = { kind: 'ok' | 'error'; text: string };

async function securityPage(c: PageContext, o: { notice?: Notice; extra?: Html; code?: number } = {}) {
  const { t } = c;
  const state = await securityState(c.app.store.db, c.account.id);
  const csrf = csrfField(c.session.csrf);
  const password = html`<form method="post" action="/console/security/password" class="card">${csrf}<h2>${t.secPassword}</h2>
<label for="sec-current">${t.secCurrent}</label><input id="sec-current" name="current" type="password" autocomplete="current-password" required maxlength="1000">
<label for="sec-new">${t.secNew}</label><input id="sec-new" name="new" type="password" autocomplete="new-password" required minlength="6" maxlength="128">
<label for="sec-repeat">${t.secRepeat}</label><input id="sec-repeat" name="repeat" type="password" autocomplete="new-password" required maxlength="128">
<p class="muted">${t.secPasswordHint}</p><button type="submit">${t.secChange}</button></form>`;
  const twoFactor = state?.totpSecret
    ? html`<form method="post" action="/console/security/totp/off" class="card">${csrf}<h2>${t.secTwoFactor}</h2>
<p><strong>${t.secTwoFactorOn}</strong> ${t.secRecoveryLeft.replace('{n}', String(state.recovery.length))}</p>
<label for="sec-off-password">${t.password}</label><input id="sec-off-password" name="password" type="password" autocomplete="current-password" required maxlength="1000">
<button type="submit" class="danger">${t.secTurnOff}</button></form>`
    : html`<form method="post" action="/console/security/totp/start" class="card">${csrf}<h2>${t.secTwoFactor}</h2>
<p>${t.secTwoFactorOff}</p><button type="submit">${t.secTurnOn}</button></form>`;
  return c.render(t.secTitle, html`${o.extra ?? ''}${password}${twoFactor}`, { notice: o.notice, code: o.code });
}

function setupForm(c: PageContext, secret: string, pending: string): Html {
  const { t } = c;
  const grouped = secret.match(/.{1,4}/g)!.join(' ');
  const uri = totpUri(secret, 'Yona', c.account.username);
  return html`<section class="card" aria-labelledby="totp-setup"><h2 id="totp-setup">${t.secSetup}</h2>
<p>${t.secSetupHint}</p><figure class="qr-figure">${qrSvg(uri, fmt(t.secQrAlt, { username: c.account.username }))}<figcaption>${t.secQr}</figcaption></figure>
<p>${t.secSecretText}</p><p class="mono" dir="ltr" id="totp-secret">${grouped}</p>
<p class="muted">${t.secUri}</p><p class="muted mono uri" id="totp-uri" dir="ltr">${uri}</p>
<form method="post" action="/console/security/totp/confirm">${csrfField(c.session.csrf)}<input type="hidden" name="pending" value="${pending}">
<label for="totp-code">${t.secFirstCode}</label><input id="totp-code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="6">
<button type="submit">${t.secConfirm}</button></form></section>`;
}

/**
 * Checks the current password typed in a signed-in form like a sign-in (the lockout and the account's ceiling
 * hold it; a wrong one counts): undefined when right, else the notice and status to answer with.
 */
async function currentPasswordProblem(
  r: ConsoleRouter,
  c: PageContext,
  typed: string,
): Promise<{ notice: Notice; code: number } | undefined> {
  const state = await securityState(c.app.store.db, c.account.id);
  const result = await r.auth.confirmPassword(c.account.username, c.request.ip, c.now, async () =>
    state ? verifyPassword(state.passwordHash, typed).catch(() => false) : false,
  );
  if (result.ok) return undefined;
  const { error, code } = refusal(r, c, c.account.username, result, c.request.url.split('?')[0]);
  const wrong = result.reason === 'invalid';
  return { notice: { kind: 'error', text: wrong ? c.t.secCurrentWrong : error }, code: wrong ? 400 : code };
}

export function registerSecurity(r: ConsoleRouter): void {
  const key = () => sealingKey(r.app.config);
  r.get('/console/security', (c) => securityPage(c));

  r.post('/console/security/password', async (c) => {
    const { t } = c;
    const fresh = c.form.get('new') ?? '';
    const refused = await currentPasswordProblem(r, c, c.form.get('current') ?? '');
    if (refused) return securityPage(c, refused);
    const problem = fresh !== (c.form.get('repeat') ?? '') ? t.secMismatch : passwordProblem(fresh);
    if (problem) return securityPage(c, { notice: { kind: 'error', text: problem }, code: 400 });
    const changed = await runOperation(c.app, c.account, setConsolePassword, {
      password: fresh,
      keepSession: c.session.id,
    });
    if (changed.status !== 0) return securityPage(c, { notice: { kind: 'error', text: changed.message }, code: 400 });
    return c.redirect('/console/security', { ok: 'secChanged' });
  });

  r.post('/console/security/totp/start', async (c) => {
    const secret = newTotpSecret();
    return securityPage(c, { extra: setupForm(c, secret, sealPending(key(), c.account.id, secret)) });
  });

  r.post('/console/security/totp/confirm', async (c) => {
    const { t } = c;
    const pending = c.form.get('pending') ?? '';
    const secret = openPending(key(), c.account.id, pending);
    if (!secret) return c.redirect('/console/security', { error: 'formExpired' });
    const step = totpStep(secret, (c.form.get('code') ?? '').trim(), c.now);
    if (step === undefined) {
      return securityPage(c, {
        notice: { kind: 'error', text: t.secCodeWrong },
        extra: setupForm(c, secret, pending),
        code: 400,
      });
    }
    const enabled = await runOperation(c.app, c.account, enableTwoFactor, { secret, confirmedStep: step });
    if (enabled.recoveryCodes === undefined)
      return securityPage(c, { notice: { kind: 'error', text: enabled.message }, code: 400 });
    const codes = enabled.recoveryCodes;
    const list = html`<section class="card" aria-labelledby="recovery"><h2 id="recovery">${t.secRecovery}</h2>
<p>${t.secRecoveryHint}</p><ul class="mono recovery">${codes.map((x) => html`<li>${x}</li>`)}</ul></section>`;
    return securityPage(c, { notice: { kind: 'ok', text: t.secEnabled }, extra: list });
  });

  r.post('/console/security/totp/off', async (c) => {
    const refused = await currentPasswordProblem(r, c, c.form.get('password') ?? '');
    if (refused) return securityPage(c, refused);
    await runOperation(c.app, c.account, disableTwoFactor, {});
    return c.redirect('/console/security', { ok: 'secDisabled' });
  });
}
