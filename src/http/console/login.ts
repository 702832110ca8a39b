// Sign-in, sign-out and the language switch. The sign-in form carries a CSRF token from a cookie set with the
// form (there is no session yet): a form posted from another site has no such cookie value.
import { frame, html, type Html } from './html.ts';
import { clearCookie, parseCookies, redirect, safeBack, sendHtml, setCookie } from './http.ts';
import { fmt } from './i18n.ts';
import { LANG_COOKIE, type Base, type ConsoleRouter } from './router.ts';
import {
  ABSOLUTE_MS,
  LOGIN_CSRF_COOKIE,
  randomId,
  sameSecret,
  SECOND_STEP_COOKIE,
  SECOND_STEP_MS,
  SESSION_COOKIE,
  type Refused,
} from './session.ts';

function loginPage(b: Base, o: { back: string; error?: string; notice?: string; username?: string; code?: number }) {
  const csrf = randomId();
  setCookie(b.reply, LOGIN_CSRF_COOKIE, csrf, { maxAgeSeconds: 3600 });
  const { t } = b;
  const body = html`<form method="post" action="/console/login" class="card narrow">
<input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="back" value="${o.back}">
<label for="username">${t.username}</label>
<input id="username" name="username" autocomplete="username" required maxlength="200" value="${o.username ?? ''}"${o.username ? '' : html` autofocus`}>
<label for="password">${t.password}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1000"${o.username ? html` autofocus` : ''}>
<button type="submit">${t.signIn}</button></form>`;
  return signInFrame(b, t.loginTitle, body, '/console/login', o);
}

function signInFrame(
  b: Base,
  title: string,
  body: Html,
  path: string,
  o: { error?: string; notice?: string; code?: number },
) {
  const notice = o.error
    ? { kind: 'error' as const, text: o.error }
    : o.notice
      ? { kind: 'ok' as const, text: o.notice }
      : undefined;
  return sendHtml(b.reply, frame({ lang: b.lang, t: b.t, title, body, path, notice }), o.code ?? 200);
}

/** The second step of a two-factor sign-in: the authenticator's code or a recovery code. */
function codePage(b: Base, o: { back: string; error?: string; code?: number }) {
  const csrf = randomId();
  setCookie(b.reply, LOGIN_CSRF_COOKIE, csrf, { maxAgeSeconds: 3600 });
  const { t } = b;
  const body = html`<form method="post" action="/console/login/code" class="card narrow">
<input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="back" value="${o.back}">
<p>${t.loginCodeIntro}</p>
<label for="code">${t.loginCode}</label>
<input id="code" name="code" autocomplete="one-time-code" inputmode="text" required maxlength="20" aria-describedby="code-hint" autofocus>
<p id="code-hint" class="muted">${t.loginCodeHint}</p>
<button type="submit">${t.loginVerify}</button>
<p><a href="/console/login">${t.loginStartOver}</a></p></form>`;
  return signInFrame(b, t.loginCodeTitle, body, '/console/login/code', o);
}

/**
 * Logs a refused sign-in step (or a wrong current password in a signed-in form, named by `form`) and says why in
 * the user's language, with its HTTP status.
 */
export function refusal(
  r: ConsoleRouter,
  b: Base,
  username: string,
  result: Refused,
  form?: string,
): { error: string; code: number } {
  // docs/logs.md: console.signin_failed per refused attempt, console.lockout when one locks the name,
  // console.attack for each failure past the account's ceiling.
  const who = { account: username.trim().slice(0, 64), client: b.request.ip, ...(form ? { form } : {}) };
  r.logger.info({ event: 'console.signin_failed', ...who, reason: result.reason }, 'console sign-in failed');
  if (result.lockedNow)
    r.logger.info(
      { event: 'console.lockout', ...who, minutes: result.retryMinutes },
      'console sign-in locked after repeated failures',
    );
  if (result.attack)
    r.logger.warn(
      {
        event: 'console.attack',
        ...who,
        failures: result.attack.failures,
        addresses: result.attack.addresses,
        retry_s: result.attack.retrySeconds,
      },
      'console sign-in failures on one account past its ceiling; further attempts slowed',
    );
  const { t } = b;
  const error = {
    locked: fmt(t.loginLocked, { minutes: result.retryMinutes ?? 15 }),
    slowed: fmt(t.accountSlowed, { seconds: result.retrySeconds ?? 1 }),
    rate: t.loginRate,
    suspended: t.loginSuspended,
    unavailable: t.loginUnavailable,
    code: t.loginCodeWrong,
    expired: t.loginCodeExpired,
    invalid: t.loginInvalid,
  }[result.reason];
  const code = {
    locked: 429,
    slowed: 429,
    rate: 429,
    suspended: 403,
    unavailable: 403,
    code: 401,
    expired: 401,
    invalid: 401,
  }[result.reason];
  return { error, code };
}

function signedIn(b: Base, sessionId: string, back: string) {
  clearCookie(b.reply, LOGIN_CSRF_COOKIE);
  clearCookie(b.reply, SECOND_STEP_COOKIE);
  setCookie(b.reply, SESSION_COOKIE, sessionId, { maxAgeSeconds: ABSOLUTE_MS / 1000 });
  return redirect(b.reply, back === '/console/login' || back === '/console/login/code' ? '/console' : back);
}

const loginCsrfOk = (b: Base, form: URLSearchParams) =>
  sameSecret(form.get('_csrf'), parseCookies(b.request.headers.cookie).get(LOGIN_CSRF_COOKIE));

export function registerLogin(r: ConsoleRouter): void {
  r.open('GET', '/console/login', async (b) => {
    const notice = b.query.out === '1' ? b.t.loggedOut : undefined;
    return loginPage(b, { back: safeBack(b.query.back), notice });
  });

  r.open('POST', '/console/login', async (b) => {
    const { form } = b;
    const back = safeBack(form.get('back'));
    const username = form.get('username') ?? '';
    const password = form.get('password') ?? '';
    if (!loginCsrfOk(b, form)) {
      return loginPage(b, { back, error: b.t.formExpired, username, code: 403 });
    }
    if (!username.trim() || !password) return loginPage(b, { back, error: b.t.loginInvalid, username, code: 401 });
    const result = await r.auth.login(username, password, b.request.ip, b.now);
    if (result.ok === 'second-step') {
      setCookie(b.reply, SECOND_STEP_COOKIE, result.pending, { maxAgeSeconds: SECOND_STEP_MS / 1000 });
      return codePage(b, { back });
    }
    if (!result.ok) return loginPage(b, { back, username, ...refusal(r, b, username, result) });
    return signedIn(b, result.sessionId, back);
  });

  r.open('GET', '/console/login/code', async (b) => {
    if (!parseCookies(b.request.headers.cookie).get(SECOND_STEP_COOKIE)) return redirect(b.reply, '/console/login');
    return codePage(b, { back: safeBack(b.query.back) });
  });

  r.open('POST', '/console/login/code', async (b) => {
    const { form } = b;
    const back = safeBack(form.get('back'));
    if (!loginCsrfOk(b, form)) return codePage(b, { back, error: b.t.formExpired, code: 403 });
    const pending = parseCookies(b.request.headers.cookie).get(SECOND_STEP_COOKIE);
    const result = await r.auth.secondStep(pending, form.get('code') ?? '', b.request.ip, b.now);
    if (result.ok === true) return signedIn(b, result.sessionId, back);
    if (result.ok === 'second-step') return redirect(b.reply, '/console/login');
    const { error, code } = refusal(r, b, result.username ?? '', result);
    if (result.reason === 'code') return codePage(b, { back, error, code });
    // Locked, expired or refused: back to the password.
    clearCookie(b.reply, SECOND_STEP_COOKIE);
    return loginPage(b, { back, error, code });
  });

  r.post('/console/logout', async (c) => {
    await r.auth.logout(c.session);
    clearCookie(c.reply, SESSION_COOKIE);
    return redirect(c.reply, '/console/login?out=1');
  });

  // The language is a preference, not an action on the account: a plain link sets it.
  r.open('GET', '/console/lang/:lang', async (b) => {
    const lang = (b.request.params as { lang?: string }).lang;
    if (lang === 'he' || lang === 'en') setCookie(b.reply, LANG_COOKIE, lang, { maxAgeSeconds: 365 * 86400 });
    return redirect(b.reply, safeBack(b.query.back));
  });
}
