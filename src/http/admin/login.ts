// The operator's sign-in: the name and password, then the authenticator's code; at the first sign-in the code
// step shows the new secret (as text, as an otpauth:// address and as a QR code) and the first right code enrols
// it. The forms carry a CSRF token from a cookie set with them (there is no session yet).
import { totpUri } from '../../domain/totp.ts';
import { fmt } from '../console/i18n.ts';
import { html } from '../console/html.ts';
import { clearCookie, parseCookies, redirect, setCookie } from '../console/http.ts';
import { qrSvg } from '../console/qr-code.ts';
import { LANG_COOKIE } from '../console/router.ts';
import { randomId, sameSecret } from '../console/session.ts';
import { adminBack, adminFrame, type AdminBase, type AdminRouter } from './router.ts';
import {
  ADMIN_LOGIN_CSRF_COOKIE,
  ADMIN_SESSION_COOKIE,
  ADMIN_STEP_COOKIE,
  ADMIN_STEP_MS,
  type OperatorRefused,
} from './session.ts';
import { ABSOLUTE_MS } from '../console/session.ts';

interface Shown {
  back: string;
  error?: string;
  notice?: string;
  name?: string;
  code?: number;
}

function formCsrf(b: AdminBase): string {
  const csrf = randomId();
  setCookie(b.reply, ADMIN_LOGIN_CSRF_COOKIE, csrf, { maxAgeSeconds: 3600 });
  return csrf;
}

const noticeOf = (o: Shown) =>
  o.error ? { kind: 'error' as const, text: o.error } : o.notice ? { kind: 'ok' as const, text: o.notice } : undefined;

function loginPage(b: AdminBase, o: Shown) {
  const { w } = b;
  const body = html`<form method="post" action="/admin/login" class="card narrow">
<input type="hidden" name="_csrf" value="${formCsrf(b)}"><input type="hidden" name="back" value="${o.back}">
<label for="name">${w.name}</label>
<input id="name" name="name" autocomplete="username" required maxlength="200" value="${o.name ?? ''}"${o.name ? '' : html` autofocus`}>
<label for="password">${w.password}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1000"${o.name ? html` autofocus` : ''}>
<button type="submit">${w.signIn}</button></form>`;
  return adminFrame(b, w.loginTitle, body, '/admin/login', noticeOf(o), o.code);
}

/** The code step; with `enrol`, the secret to add to the authenticator first. */
function codePage(b: AdminBase, o: Shown & { enrol?: { secret: string; name: string } }) {
  const { w } = b;
  const form = html`<form method="post" action="/admin/login/code" class="card narrow">
<input type="hidden" name="_csrf" value="${formCsrf(b)}"><input type="hidden" name="back" value="${o.back}">
${o.enrol ? '' : html`<p>${w.codeIntro}</p>`}
<label for="code">${o.enrol ? w.enrolCode : w.code}</label>
<input id="code" name="code" autocomplete="one-time-code" inputmode="numeric" required maxlength="8" autofocus>
<button type="submit">${w.verify}</button>
<p><a href="/admin/login">${w.startOver}</a></p></form>`;
  if (!o.enrol) return adminFrame(b, w.codeTitle, form, '/admin/login/code', noticeOf(o), o.code);
  const uri = totpUri(o.enrol.secret, 'Yona operator', o.enrol.name);
  const grouped = o.enrol.secret.match(/.{1,4}/g)!.join(' ');
  const body = html`<section class="card" aria-labelledby="enrol"><h2 id="enrol">${w.enrolTitle}</h2>
<p>${w.enrolIntro}</p><figure class="qr-figure">${qrSvg(uri, fmt(w.enrolQrAlt, { name: o.enrol.name }))}<figcaption>${w.enrolQr}</figcaption></figure>
<p>${w.enrolSecret}</p><p class="mono" dir="ltr" id="totp-secret">${grouped}</p>
<p class="muted">${w.enrolUri}</p><p class="muted mono uri" id="totp-uri" dir="ltr">${uri}</p></section>${form}`;
  return adminFrame(b, w.enrolTitle, body, '/admin/login/enrol', noticeOf(o), o.code);
}

function refusal(r: AdminRouter, b: AdminBase, name: string, result: OperatorRefused): { error: string; code: number } {
  r.logger.info(
    { event: 'admin.signin_failed', operator: name.trim().slice(0, 64), client: b.request.ip, reason: result.reason },
    'operator sign-in failed',
  );
  const { w } = b;
  const error = {
    locked: fmt(w.loginLocked, { minutes: result.retryMinutes ?? 15 }),
    rate: w.loginRate,
    code: w.codeWrong,
    expired: w.codeExpired,
    invalid: w.loginInvalid,
  }[result.reason];
  const code = { locked: 429, rate: 429, code: 401, expired: 401, invalid: 401 }[result.reason];
  return { error, code };
}

const csrfOk = (b: AdminBase) =>
  sameSecret(b.form.get('_csrf'), parseCookies(b.request.headers.cookie).get(ADMIN_LOGIN_CSRF_COOKIE));

export function registerAdminLogin(r: AdminRouter): void {
  r.open('GET', '/admin/login', async (b) =>
    loginPage(b, { back: adminBack(b.query.back), notice: b.query.out === '1' ? b.w.loggedOut : undefined }),
  );

  r.open('POST', '/admin/login', async (b) => {
    const back = adminBack(b.form.get('back'));
    const name = b.form.get('name') ?? '';
    const password = b.form.get('password') ?? '';
    if (!csrfOk(b)) return loginPage(b, { back, name, error: b.w.formExpired, code: 403 });
    if (!name.trim() || !password) return loginPage(b, { back, name, error: b.w.loginInvalid, code: 401 });
    const result = await r.auth.login(name, password, b.request.ip, b.now);
    if (result.ok === 'code') {
      setCookie(b.reply, ADMIN_STEP_COOKIE, result.pending, { maxAgeSeconds: ADMIN_STEP_MS / 1000 });
      return codePage(b, { back, enrol: result.secret ? { secret: result.secret, name: result.name } : undefined });
    }
    if (result.ok === true) return redirect(b.reply, '/admin/login');
    return loginPage(b, { back, name, ...refusal(r, b, name, result) });
  });

  const showCode = async (b: AdminBase) => {
    const state = r.auth.pendingStep(parseCookies(b.request.headers.cookie).get(ADMIN_STEP_COOKIE), b.now);
    if (!state) return redirect(b.reply, '/admin/login');
    return codePage(b, {
      back: adminBack(b.query.back),
      enrol: state.secret ? { secret: state.secret, name: state.name } : undefined,
    });
  };
  r.open('GET', '/admin/login/code', showCode);
  r.open('GET', '/admin/login/enrol', showCode);

  r.open('POST', '/admin/login/code', async (b) => {
    const back = adminBack(b.form.get('back'));
    const pending = parseCookies(b.request.headers.cookie).get(ADMIN_STEP_COOKIE);
    const state = r.auth.pendingStep(pending, b.now);
    const enrol = state?.secret ? { secret: state.secret, name: state.name } : undefined;
    if (!csrfOk(b)) return codePage(b, { back, enrol, error: b.w.formExpired, code: 403 });
    const result = await r.auth.code(pending, b.form.get('code') ?? '', b.request.ip, b.now);
    if (result.ok === true) {
      clearCookie(b.reply, ADMIN_LOGIN_CSRF_COOKIE);
      clearCookie(b.reply, ADMIN_STEP_COOKIE);
      setCookie(b.reply, ADMIN_SESSION_COOKIE, result.sessionId, { maxAgeSeconds: ABSOLUTE_MS / 1000 });
      r.logger.info({ event: 'admin.signin', operator: state?.name, client: b.request.ip }, 'operator signed in');
      return redirect(b.reply, back.startsWith('/admin/login') ? '/admin' : back);
    }
    if (result.ok !== false) return redirect(b.reply, '/admin/login');
    const { error, code } = refusal(r, b, result.name ?? state?.name ?? '', result);
    if (result.reason === 'code') return codePage(b, { back, enrol, error, code });
    clearCookie(b.reply, ADMIN_STEP_COOKIE);
    return loginPage(b, { back, error, code });
  });

  r.post('/admin/logout', async (c) => {
    await r.auth.logout(c.session);
    clearCookie(c.reply, ADMIN_SESSION_COOKIE);
    return redirect(c.reply, '/admin/login?out=1');
  });

  r.open('GET', '/admin/lang/:lang', async (b) => {
    const lang = (b.request.params as { lang?: string }).lang;
    if (lang === 'he' || lang === 'en') setCookie(b.reply, LANG_COOKIE, lang, { maxAgeSeconds: 365 * 86400 });
    return redirect(b.reply, adminBack(b.query.back));
  });
}
