// The console's routes: every page needs a live session (else the sign-in page) and an account of its audience in
// the page table (pages.ts; else 404), every POST the session's CSRF token; everything answers only over HTTPS, on
// guarded input (guarded-route.ts, shared with the operator console).
// Page modules register GET and POST handlers here, each for a path of the page table.
import { num } from './format.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../../logger.ts';
import type { AppContext } from '../../operations/execute.ts';
import type { Account } from '../../store/accounts.ts';
import type { ConsoleSession } from '../../store/console-sessions.ts';
import { html, frame, type Html } from './html.ts';
import type { FieldProblem } from './form-guard.ts';
import { parseCookies, redirect, safeBack, sendHtml } from './http.ts';
import { guardedRoute, type Input, type RouteGuard } from '../guarded-route.ts';
import { fmt, messages, type Lang, type Messages } from './i18n.ts';
import { consolePage, mayOpen } from './pages.ts';
import { prefersHebrew } from '../language.ts';
import { ConsoleAuth, sameSecret, SESSION_COOKIE } from './session.ts';
import { sealingKey } from '../../secret-key.ts';

export const LANG_COOKIE = 'yona_lang';

export interface Base {
  app: AppContext;
  request: FastifyRequest;
  reply: FastifyReply;
  lang: Lang;
  t: Messages;
  now: number;
  /** The query string's fields (the first of a repeated name), read by the input guard. */
  query: Record<string, string>;
  /** The form fields of a POST (empty for a GET), read by the input guard. */
  form: URLSearchParams;
}

export interface PageContext extends Base {
  account: Account;
  session: ConsoleSession;
  params: Record<string, string>;
  /** Sends a page in the frame. */
  render(
    title: string,
    body: Html,
    o?: { code?: number; notice?: { kind: 'ok' | 'error'; text: string }; scripts?: string[]; styles?: string[] },
  ): FastifyReply;
  /** 303 to a console page, with a notice named by its message key (and the whole numbers its text shows). */
  redirect(
    path: string,
    notice?: { ok?: keyof Messages; error?: keyof Messages; counts?: Record<string, number> },
  ): FastifyReply;
}

export type Handler = (c: PageContext) => Promise<FastifyReply>;

export function languageOf(request: FastifyRequest): Lang {
  const chosen = parseCookies(request.headers.cookie).get(LANG_COOKIE);
  if (chosen === 'he' || chosen === 'en') return chosen;
  return prefersHebrew(String(request.headers['accept-language'] ?? '')) ? 'he' : 'en';
}

/** A whole number from a path or query parameter (ids, cursors), or undefined. */
export function whole(text: string | undefined): number | undefined {
  return text !== undefined && /^\d{1,15}$/.test(text) ? Number(text) : undefined;
}

export { inputOf, type Input } from '../guarded-route.ts';

function formPage(request: FastifyRequest): string {
  try {
    return safeBack(new URL(String(request.headers.referer ?? '')).pathname);
  } catch {
    return '/console';
  }
}

/** 400 naming the refused field, in the user's language: nothing past the guard ran, so nothing was stored or sent. */
export function refuseInput(b: Base, problem: FieldProblem): FastifyReply {
  const { t } = b;
  const code = problem.code === undefined ? '' : `U+${problem.code.toString(16).toUpperCase().padStart(4, '0')}`;
  const why =
    problem.code === undefined
      ? t.inputNotText
      : fmt(problem.code < 0x20 ? t.inputControl : t.inputSurrogate, { code });
  const field = (problem.field ?? '').slice(0, 60);
  const text =
    problem.field === undefined
      ? fmt(t.inputRefusedName, { why })
      : fmt({ form: t.inputRefusedField, query: t.inputRefusedQuery, path: t.inputRefusedPath }[problem.source], {
          field,
          why,
        });
  const path = b.request.method === 'POST' ? formPage(b.request) : safeBack(b.request.url.split('?')[0]);
  const body = html`<p><a href="${path}">${t.inputBack}</a></p>`;
  return sendHtml(
    b.reply,
    frame({ lang: b.lang, t, title: t.inputRefusedTitle, body, path, notice: { kind: 'error', text } }),
    400,
  );
}

export class ConsoleRouter {
  readonly auth: ConsoleAuth;
  private readonly guard: RouteGuard<Base> = {
    base: (request, reply, input) => this.base(request, reply, input),
    refuse: (b, problem) => refuseInput(b, problem),
    failure: (b, err) => this.failure(b, err),
  };

  constructor(
    readonly fastify: FastifyInstance,
    readonly app: AppContext,
    readonly logger: Logger,
  ) {
    this.auth = new ConsoleAuth(
      () => app.store.db,
      () => sealingKey(app.config),
    );
  }

  base(request: FastifyRequest, reply: FastifyReply, input: Input): Base {
    const lang = languageOf(request);
    const { query, form } = input.ok ? input : { query: {}, form: new URLSearchParams() };
    return { app: this.app, request, reply, lang, t: messages(lang), now: this.app.clock(), query, form };
  }

  /** A route open to anyone over HTTPS (sign-in, assets, language). */
  open(method: 'GET' | 'POST', path: string, handler: (b: Base) => Promise<FastifyReply>): void {
    if (consolePage(path).audience !== 'anyone') throw new Error(`console path ${path} is not open to anyone`);
    guardedRoute(this.fastify, method, path, this.guard, handler);
  }

  get(path: string, handler: Handler): void {
    this.route('GET', path, handler);
  }

  post(path: string, handler: Handler): void {
    this.route('POST', path, handler);
  }

  private route(method: 'GET' | 'POST', path: string, handler: Handler): void {
    const page = consolePage(path);
    guardedRoute(this.fastify, method, path, this.guard, async (b) => {
      const { request, reply } = b;
      const live = await this.auth.resume(parseCookies(request.headers.cookie).get(SESSION_COOKIE), b.now);
      if (!live) {
        const back = method === 'GET' ? `?back=${encodeURIComponent(request.url.split('?')[0])}` : '';
        return redirect(reply, `/console/login${back}`);
      }
      const c = this.pageContext(b, live.account, live.session, (request.params ?? {}) as Record<string, string>);
      // Outside the page's audience (a reseller's page, another account): as for a page that does not exist.
      if (!mayOpen(page, live.account)) return c.render(b.t.notFound, html`<p>${b.t.notFoundText}</p>`, { code: 404 });
      if (method === 'POST' && !sameSecret(b.form.get('_csrf'), live.session.csrf)) {
        return c.render(b.t.formExpired, html`<p><a href="${request.url.split('?')[0]}">${b.t.formExpired}</a></p>`, {
          code: 403,
        });
      }
      return await handler(c);
    });
  }

  private pageContext(b: Base, account: Account, session: ConsoleSession, params: Record<string, string>): PageContext {
    // A page answering a form stands for the page the form was on (its language link and current section).
    const path = b.request.method === 'POST' ? formPage(b.request) : b.request.url.split('?')[0];
    const noticeFromQuery = (): { kind: 'ok' | 'error'; text: string } | undefined => {
      const ok = b.query.ok as keyof Messages | undefined;
      const error = b.query.error as keyof Messages | undefined;
      // A notice's {placeholders} take whole numbers from the query (counts), nothing else.
      const counts: Record<string, string> = {};
      for (const [k, v] of Object.entries(b.query))
        if (k !== 'ok' && k !== 'error' && whole(v) !== undefined) counts[k] = num(whole(v)!);
      if (ok && Object.hasOwn(b.t, ok)) return { kind: 'ok', text: fmt(b.t[ok], counts) };
      if (error && Object.hasOwn(b.t, error)) return { kind: 'error', text: fmt(b.t[error], counts) };
      return undefined;
    };
    return {
      ...b,
      account,
      session,
      params,
      render: (title, body, o = {}) =>
        sendHtml(
          b.reply,
          frame({
            lang: b.lang,
            t: b.t,
            title,
            body,
            path,
            user: { username: account.username, isReseller: !!account.is_reseller, csrf: session.csrf },
            notice: o.notice ?? noticeFromQuery(),
            scripts: o.scripts,
            styles: o.styles,
          }),
          o.code ?? 200,
        ),
      redirect: (to, notice) => {
        const q = new URLSearchParams();
        if (notice?.ok) q.set('ok', notice.ok);
        else if (notice?.error) q.set('error', notice.error);
        for (const [k, v] of Object.entries(notice?.counts ?? {})) q.set(k, String(v));
        const query = q.toString();
        return redirect(b.reply, query ? `${to}?${query}` : to);
      },
    };
  }

  private failure(b: Base, err: unknown): FastifyReply {
    this.logger.error({ err, url: b.request.url }, 'console request failed');
    return sendHtml(
      b.reply,
      frame({
        lang: b.lang,
        t: b.t,
        title: b.t.failed,
        body: html`<p><a href="/console">Yona</a></p>`,
        path: '/console',
      }),
      500,
    );
  }
}
