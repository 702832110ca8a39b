// The operator console's routes (/admin, HTTPS only, on guarded input: guarded-route.ts, as the console's): every
// page needs a live operator session (else the sign-in page), every POST the session's CSRF token, and a form that
// changes something (audience 'admin' in pages.ts) an admin operator: a support operator's POST is refused (403)
// before its handler runs, and the runner refuses it again (511) should a handler run an operation. Handlers act
// through the operation runner with `c.app`, whose `operator` makes every change write its audit row
// (operations/audit.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../../logger.ts';
import type { AppContext } from '../../operations/execute.ts';
import type { OperatorActor } from '../../operations/audit.ts';
import type { Operator } from '../../store/read-models.ts';
import type { OperatorSession } from '../../store/operator-sessions.ts';
import { sealingKey } from '../../secret-key.ts';
import { frame, html, type FrameArea, type Html } from '../console/html.ts';
import { parseCookies, redirect, sendHtml } from '../console/http.ts';
import { fmt, messages, type Lang, type Messages } from '../console/i18n.ts';
import { languageOf, refuseInput } from '../console/router.ts';
import { guardedRoute, type Input, type RouteGuard } from '../guarded-route.ts';
import { sameSecret } from '../console/session.ts';
import { adminWords, type AdminWords } from './i18n.ts';
import { adminNavigation, adminPage, operatorMay } from './pages.ts';
import { ADMIN_SESSION_COOKIE, OperatorAuth } from './session.ts';

export interface AdminBase {
  request: FastifyRequest;
  reply: FastifyReply;
  lang: Lang;
  /** The console's shared words (frame, input refusals). */
  t: Messages;
  /** The operator console's words. */
  w: AdminWords;
  now: number;
  query: Record<string, string>;
  form: URLSearchParams;
}

export type Notice = { kind: 'ok' | 'error'; text: string };

export interface AdminContext extends AdminBase {
  /** The runner's context acting as this operator: every change it runs is audited with the operator's name. */
  app: AppContext;
  operator: Operator;
  session: OperatorSession;
  params: Record<string, string>;
  render(
    title: string,
    body: Html,
    o?: { code?: number; notice?: Notice; scripts?: string[]; styles?: string[] },
  ): FastifyReply;
  /** 303 to an /admin page, with a notice named by its word key. */
  redirect(path: string, notice?: { ok?: keyof AdminWords; error?: keyof AdminWords }): FastifyReply;
}

export type AdminHandler = (c: AdminContext) => Promise<FastifyReply>;

/** A `back` parameter only ever names an /admin page. */
export function adminBack(back: unknown): string {
  return typeof back === 'string' && /^\/admin(\/[A-Za-z0-9_\-/.]*)?$/.test(back) ? back : '/admin';
}

/** The frame's area for the operator console: its navigation when signed in. */
export function adminArea(w: AdminWords, who?: { name: string; csrf: string }): FrameArea {
  return {
    home: '/admin',
    nav: who ? adminNavigation().map(({ href, label }) => ({ href, label: w[label] })) : [],
    who: who ? { name: who.name, logout: '/admin/logout', csrf: who.csrf } : undefined,
    lang: '/admin/lang',
  };
}

/** A page of the operator console outside a session (sign-in, errors). */
export function adminFrame(b: AdminBase, title: string, body: Html, path: string, notice?: Notice, code = 200) {
  return sendHtml(b.reply, frame({ lang: b.lang, t: b.t, title, body, path, notice, area: adminArea(b.w) }), code);
}

export class AdminRouter {
  readonly auth: OperatorAuth;
  private readonly guard: RouteGuard<AdminBase> = {
    base: (request, reply, input) => this.base(request, reply, input),
    refuse: (b, problem) => refuseInput({ ...b, app: this.app }, problem),
    failure: (b, err) => this.failure(b, err),
  };

  constructor(
    readonly fastify: FastifyInstance,
    readonly app: AppContext,
    readonly logger: Logger,
  ) {
    this.auth = new OperatorAuth(
      () => app.store.db,
      () => sealingKey(app.config),
    );
  }

  private base(request: FastifyRequest, reply: FastifyReply, input: Input): AdminBase {
    const lang = languageOf(request);
    const { query, form } = input.ok ? input : { query: {}, form: new URLSearchParams() };
    return { request, reply, lang, t: messages(lang), w: adminWords(lang), now: this.app.clock(), query, form };
  }

  /** A route open to anyone over HTTPS (the sign-in steps, the language switch). */
  open(method: 'GET' | 'POST', path: string, handler: (b: AdminBase) => Promise<FastifyReply>): void {
    if (adminPage(path).audience !== 'anyone') throw new Error(`admin path ${path} is not open to anyone`);
    guardedRoute(this.fastify, method, path, this.guard, handler);
  }

  get(path: string, handler: AdminHandler): void {
    this.route('GET', path, handler);
  }

  post(path: string, handler: AdminHandler): void {
    this.route('POST', path, handler);
  }

  private route(method: 'GET' | 'POST', path: string, handler: AdminHandler): void {
    const page = adminPage(path);
    if (page.audience === 'anyone') throw new Error(`admin path ${path} is open to anyone: register it with open()`);
    guardedRoute(this.fastify, method, path, this.guard, async (b) => {
      const { request, reply } = b;
      const live = await this.auth.resume(parseCookies(request.headers.cookie).get(ADMIN_SESSION_COOKIE), b.now);
      if (!live) {
        const back = method === 'GET' ? `?back=${encodeURIComponent(request.url.split('?')[0])}` : '';
        return redirect(reply, `/admin/login${back}`);
      }
      const c = this.context(b, live.operator, live.session, (request.params ?? {}) as Record<string, string>);
      if (method === 'POST' && !sameSecret(b.form.get('_csrf'), live.session.csrf))
        return c.render(b.w.formExpired, html`<p><a href="${request.url.split('?')[0]}">${b.w.formExpired}</a></p>`, {
          code: 403,
        });
      if (!operatorMay(page, live.operator.role)) {
        this.logger.info(
          { event: 'admin.refused', operator: live.operator.name, path, reason: 'support' },
          'a support operator tried to change something',
        );
        return c.render(b.w.readOnlyRefused, html`<p><a href="/admin">${b.w.navHome}</a></p>`, { code: 403 });
      }
      return await handler(c);
    });
  }

  private context(
    b: AdminBase,
    operator: Operator,
    session: OperatorSession,
    params: Record<string, string>,
  ): AdminContext {
    const actor: OperatorActor = { name: operator.name, role: operator.role, via: 'console', address: b.request.ip };
    const path = b.request.url.split('?')[0];
    const noticeFromQuery = (): Notice | undefined => {
      const ok = b.query.ok as keyof AdminWords | undefined;
      const error = b.query.error as keyof AdminWords | undefined;
      if (ok && Object.hasOwn(b.w, ok)) return { kind: 'ok', text: b.w[ok] };
      if (error && Object.hasOwn(b.w, error)) return { kind: 'error', text: b.w[error] };
      return undefined;
    };
    return {
      ...b,
      app: { ...this.app, operator: actor },
      operator,
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
            notice: o.notice ?? noticeFromQuery(),
            scripts: o.scripts,
            styles: o.styles,
            area: adminArea(b.w, { name: operator.name, csrf: session.csrf }),
          }),
          o.code ?? 200,
        ),
      redirect: (to, notice) => {
        const q = new URLSearchParams();
        if (notice?.ok) q.set('ok', notice.ok);
        else if (notice?.error) q.set('error', notice.error);
        const query = q.toString();
        return redirect(b.reply, query ? `${to}?${query}` : to);
      },
    };
  }

  private failure(b: AdminBase, err: unknown): FastifyReply {
    this.logger.error({ err, url: b.request.url }, 'admin request failed');
    return adminFrame(b, b.w.failed, html`<p><a href="/admin">Yona</a></p>`, '/admin', undefined, 500);
  }
}

/** A refusal's notice: the operation's message in the operator's words. */
export function refusedNotice(w: AdminWords, message: string): Notice {
  return { kind: 'error', text: fmt(w.refused, { message }) };
}
