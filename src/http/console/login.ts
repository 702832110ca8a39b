// Sign-in, sign-out and the language switch. The sign-in form carries a CSRF token from a cookie set with the
// form (there is no session yet): a form posted from another site has no such cookie value.
import { esc, frame } from './html.ts';
import { clearCookie, formBody, parseCookies, redirect, safeBack, sendHtml, setCookie } from './http.ts';
import { fmt } from './i18n.ts';
import { LANG_COOKIE, type Base, type ConsoleRouter } from './router.ts';
import { LOGIN_CSRF_COOKIE, randomId, sameSecret, SESSION_COOKIE, ABSOLUTE_MS } from './session.ts';

function loginPage(b: Base, o: { back: string; error?: string; notice?: string; username?: string; code?: number }) {
  const csrf = randomId();
  setCookie(b.reply, LOGIN_CSRF_COOKIE, csrf, { maxAgeSeconds: 3600 });
  const { t } = b;
  const body = `<form method="post" action="/console/login" class="card narrow">
<input type="hidden" name="_csrf" value="${esc(csrf)}"><input type="hidden" name="back" value="${esc(o.back)}">
<label for="username">${esc(t.username)}</label>
<input id="username" name="username" autocomplete="username" required maxlength="200" value="${esc(o.username ?? '')}"${o.username ? '' : ' autofocus'}>
<label for="password">${esc(t.password)}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1000"${o.username ? ' autofocus' : ''}>
<label for="code">${esc(t.loginCode)}</label>
<input id="code" name="code" autocomplete="one-time-code" inputmode="text" maxlength="20" aria-describedby="code-hint">
<p id="code-hint" class="muted">${esc(t.loginCodeHint)}</p>
<button type="submit">${esc(t.signIn)}</button></form>`;
  const notice = o.error
    ? { kind: 'error' as const, text: o.error }
    : o.notice
      ? { kind: 'ok' as const, text: o.notice }
      : undefined;
  return sendHtml(
    b.reply,
    frame({ lang: b.lang, t, title: t.loginTitle, body, path: '/console/login', notice }),
    o.code ?? 200,
  );
}

export function registerLogin(r: ConsoleRouter): void {
  r.open('GET', '/console/login', async (b) => {
    const notice = b.query.out === '1' ? b.t.loggedOut : undefined;
    return loginPage(b, { back: safeBack(b.query.back), notice });
  });

  r.open('POST', '/console/login', async (b) => {
    const form = formBody(b.request);
    const back = safeBack(form.get('back'));
    const username = form.get('username') ?? '';
    const password = form.get('password') ?? '';
    if (!sameSecret(form.get('_csrf'), parseCookies(b.request.headers.cookie).get(LOGIN_CSRF_COOKIE))) {
      return loginPage(b, { back, error: b.t.formExpired, username, code: 403 });
    }
    if (!username.trim() || !password) return loginPage(b, { back, error: b.t.loginInvalid, username, code: 401 });
    const result = await r.auth.login(username, password, b.request.ip, b.now, form.get('code') ?? '');
    if (!result.ok) {
      // docs/logs.md: console.signin_failed per refused sign-in, console.lockout when one locks the name.
      const who = { account: username.trim().slice(0, 64), client: b.request.ip };
      r.logger.info({ event: 'console.signin_failed', ...who, reason: result.reason }, 'console sign-in failed');
      if (result.lockedNow)
        r.logger.info(
          { event: 'console.lockout', ...who, minutes: result.retryMinutes },
          'console sign-in locked after repeated failures',
        );
      const error =
        result.reason === 'locked'
          ? fmt(b.t.loginLocked, { minutes: result.retryMinutes ?? 15 })
          : result.reason === 'rate'
            ? b.t.loginRate
            : result.reason === 'suspended'
              ? b.t.loginSuspended
              : result.reason === 'code'
                ? b.t.loginCodeWrong
                : b.t.loginInvalid;
      const code =
        result.reason === 'invalid' || result.reason === 'code' ? 401 : result.reason === 'suspended' ? 403 : 429;
      return loginPage(b, { back, error, username, code });
    }
    clearCookie(b.reply, LOGIN_CSRF_COOKIE);
    setCookie(b.reply, SESSION_COOKIE, result.sessionId, { maxAgeSeconds: ABSOLUTE_MS / 1000 });
    return redirect(b.reply, back === '/console/login' ? '/console' : back);
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
