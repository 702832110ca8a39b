// The route test on /admin/routes: the form of `yona admin route-test` (destination, account, sender, channel),
// answered by the same code (AppContext.routeTest, delivery/route-test.ts) with the route that matches and the
// carriers in the order tried. It changes nothing, so a support operator may run it too; it is a POST with the
// session's CSRF token like every form of the console.
import { channelNames } from '../../domain/channels.ts';
import type { RouteTestAnswer, RouteTestProblem, RouteTestQuestion } from '../../domain/route-test.ts';
import { csrfField, html, type Html } from '../console/html.ts';
import { fmt } from '../console/i18n.ts';
import type { AdminContext, AdminRouter } from './router.ts';

/** The route test form, filled with the question asked (if any). */
export function routeTestForm(c: AdminContext, q: Partial<RouteTestQuestion> = {}): Html {
  const { w } = c;
  const channel = q.channel ?? '';
  return html`<form method="post" action="/admin/routes/test" class="card" id="route-test"><h2>${w.routeTestTitle}</h2>
<p>${w.routeTestIntro}</p>${csrfField(c.session.csrf)}
<label for="test-to">${w.routeTestTo}</label><input id="test-to" name="to" required maxlength="20" inputmode="tel" dir="ltr" value="${q.to ?? ''}">
<label for="test-account">${w.account}</label><input id="test-account" name="account" maxlength="64" dir="ltr" value="${q.account ?? ''}">
<label for="test-source">${w.sender}</label><input id="test-source" name="source" maxlength="20" dir="ltr" value="${q.source ?? ''}">
<label for="test-channel">${w.channel}</label><select id="test-channel" name="channel">${channelNames().map(
    (name) => html`<option value="${name}"${name === channel ? html` selected` : ''}>${name}</option>`,
  )}</select>
<button type="submit">${w.routeTestRun}</button></form>`;
}

/** A refused question in the operator's language (the CLI's English words when the reason is not known). */
function problemOf(c: AdminContext, a: Extract<RouteTestAnswer, { kind: 'problem' }>): string {
  const words: Record<RouteTestProblem, string> = {
    phone: c.w.routeTestBadPhone,
    channel: c.w.routeTestBadChannel,
    account: c.w.routeTestNoAccount,
    router: c.w.routeTestNoRouter,
  };
  return a.reason ? fmt(words[a.reason], { value: a.value ?? '' }) : a.problem;
}

/** The answer in the operator's words. */
function answerOf(c: AdminContext, a: Exclude<RouteTestAnswer, { kind: 'problem' }>): Html {
  const { w } = c;
  const heading = html`<h2>${fmt(w.routeTestAnswer, { phone: `+${a.phone}`, channel: a.channel })}</h2>`;
  if (a.kind !== 'carriers') {
    const text =
      a.kind === 'simulator'
        ? w.routeTestSimulator
        : a.kind === 'refused-no-carrier'
          ? w.routeTestNoCarrier
          : w.routeTestNoChannelCarrier;
    return html`<section class="card" id="route-test-answer" aria-live="polite">${heading}<p>${text}</p></section>`;
  }
  const route = a.route
    ? html`<span dir="ltr">${a.route.prefix === '' ? w.defaultRoute : a.route.prefix}${[
        a.route.account ? ` · ${w.account} ${a.route.account}` : '',
        a.route.source ? ` · ${w.sender} ${a.route.source}` : '',
        a.route.channel ? ` · ${a.route.channel}` : '',
      ].join('')}: ${a.route.carrier.split(',').join(' → ')}</span>`
    : w.routeTestNoRoute;
  return html`<section class="card" id="route-test-answer" aria-live="polite">${heading}
<dl><dt>${w.routeTestRoute}</dt><dd>${route}</dd>
<dt>${w.routeTestOrder}</dt><dd><ol class="carrier-order">${a.carriers.map(
    (name) => html`<li><a href="/admin/carriers/${encodeURIComponent(name)}" dir="ltr">${name}</a></li>`,
  )}</ol></dd></dl></section>`;
}

export function registerAdminRouteTest(r: AdminRouter): void {
  r.post('/admin/routes/test', async (c) => {
    const q: RouteTestQuestion = {
      to: c.form.get('to') ?? '',
      account: c.form.get('account') ?? '',
      source: c.form.get('source') ?? '',
      channel: c.form.get('channel') ?? '',
    };
    const answer = c.app.routeTest
      ? await c.app.routeTest(q)
      : ({ kind: 'problem', problem: c.w.routeTestUnavailable } as const);
    const back = html`<p><a href="/admin/routes">${c.w.routesTitle}</a></p>`;
    if (answer.kind === 'problem')
      return c.render(c.w.routeTestTitle, html`${routeTestForm(c, q)}${back}`, {
        code: 400,
        notice: { kind: 'error', text: problemOf(c, answer) },
      });
    return c.render(c.w.routeTestTitle, html`${answerOf(c, answer)}${routeTestForm(c, q)}${back}`);
  });
}
