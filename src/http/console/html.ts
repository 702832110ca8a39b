// Console HTML: the `html` template (every interpolated value escaped), the page frame (navigation, language
// switch, flash notice) and small form helpers.
import type { Lang, Messages } from './i18n.ts';
import { navigationFor } from './pages.ts';

/** Wraps markup this module built itself (never text from outside). */
let trusted: (markup: string) => Html;
let markupOfHtml: (h: Html) => string;

/** Markup known to be safe as it is, built by `html` (its values escaped); only this module makes one. */
export class Html {
  readonly #markup: string;

  private constructor(markup: string) {
    this.#markup = markup;
  }

  static {
    trusted = (markup) => new Html(markup);
    markupOfHtml = (h) => h.#markup;
  }

  toString(): string {
    return this.#markup;
  }
}

/** What a template may interpolate: markup as it is, text and numbers escaped, arrays one after another. */
export type HtmlValue = Html | string | number | bigint | boolean | null | undefined | readonly HtmlValue[];

function escapeText(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The text of markup (or of a value as a template would put it in): what is sent. */
export function markupOf(value: unknown): string {
  if (value instanceof Html) return markupOfHtml(value);
  if (Array.isArray(value)) return value.map(markupOf).join('');
  return escapeText(value);
}

/**
 * The console's markup: `html\`<p>${text}</p>\`` escapes every interpolated value (in text and in attribute
 * values alike), except an Html fragment (a nested template, a helper's output), which goes in as it is; an array
 * goes in element after element; null and undefined are empty.
 */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += markupOf(values[i]) + strings[i + 1];
  return trusted(out);
}

/** Nothing (an empty fragment, for optional parts of a page). */
export const NO_HTML: Html = html``;

/** Data for a page script, as the text of `<script type="application/json">` (no `<` in it to end the element). */
export function jsonScript(id: string, data: unknown): Html {
  return html`<script type="application/json" id="${id}">${trusted(JSON.stringify(data).replace(/</g, '\\u003c'))}</script>`;
}

/**
 * Text a customer or a recipient wrote (a message, a campaign or list name, a reply), escaped in an element whose
 * direction follows its own first strong letter: a Hebrew text reads right to left on an English page, and an
 * English one left to right on a Hebrew page.
 */
export function userText(value: unknown, tag = 'span', attrs: Html = NO_HTML): Html {
  return html`<${trusted(tag)} dir="auto"${attrs}>${String(value ?? '')}</${trusted(tag)}>`;
}

export interface FrameOptions {
  lang: Lang;
  t: Messages;
  title: string;
  body: Html;
  /** Signed in: the navigation, the account name and the logout form. */
  user?: { username: string; isReseller: boolean; csrf: string };
  /** The path the page lives at (for the language switch and the current navigation item). */
  path: string;
  notice?: { kind: 'ok' | 'error'; text: string };
  /** Extra scripts (under /console/assets/). */
  scripts?: string[];
  styles?: string[];
  /**
   * Another area with the console's look (the operator's console at /admin): its home, navigation, sign-out
   * form, language switch and who is signed in, instead of the customer console's.
   */
  area?: FrameArea;
}

export interface FrameArea {
  home: string;
  /** The signed-in navigation (empty when signed out). */
  nav: Array<{ href: string; label: string }>;
  /** Who is signed in and the sign-out form's action and CSRF token; undefined when signed out. */
  who?: { name: string; logout: string; csrf: string };
  /** The language switch's path, to which `/he` or `/en` is added. */
  lang: string;
}

export function frame(o: FrameOptions): Html {
  const { t } = o;
  const dir = o.lang === 'he' ? 'rtl' : 'ltr';
  const other: Lang = o.lang === 'he' ? 'en' : 'he';
  const area: FrameArea = o.area ?? {
    home: '/console',
    nav: o.user
      ? navigationFor({ is_reseller: o.user.isReseller }).map(({ href, label }) => ({ href, label: t[label] }))
      : [],
    who: o.user ? { name: o.user.username, logout: '/console/logout', csrf: o.user.csrf } : undefined,
    lang: '/console/lang',
  };
  const nav = area.nav.map(({ href, label }) => {
    const current = o.path === href || (href !== area.home && o.path.startsWith(`${href}/`));
    return html`<li><a href="${href}"${current ? html` aria-current="page"` : ''}>${label}</a></li>`;
  });
  const header = html`<header class="top"><a class="brand" href="${area.home}">Yona</a>
${area.nav.length > 0 ? html`<nav aria-label="${t.navLabel}"><ul>${nav}</ul></nav>` : ''}
<div class="who">${
    area.who
      ? html`<span>${area.who.name}</span>
<form method="post" action="${area.who.logout}">${csrfField(area.who.csrf)}<button type="submit" class="link">${t.logout}</button></form>`
      : ''
  }
<a href="${area.lang}/${other}?back=${encodeURIComponent(o.path)}" lang="${other}" hreflang="${other}">${other === 'he' ? 'עברית' : 'English'}</a></div></header>`;
  const notice = o.notice
    ? html`<p class="notice ${o.notice.kind}" role="${o.notice.kind === 'error' ? 'alert' : 'status'}">${o.notice.text}</p>`
    : '';
  return html`<!doctype html><html lang="${o.lang}" dir="${dir}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">
<title>${o.title} · Yona</title><link rel="icon" href="/console/assets/favicon.svg" type="image/svg+xml"><link rel="stylesheet" href="/console/assets/console.css">
${(o.styles ?? []).map((s) => html`<link rel="stylesheet" href="/console/assets/${s}">`)}
</head><body><a class="skip" href="#main">${t.skip}</a>${header}
<main id="main" tabindex="-1"><h1>${o.title}</h1>${notice}${o.body}</main>
<script src="/console/assets/console.js" defer></script>
${(o.scripts ?? []).map((s) => html`<script src="/console/assets/${s}" defer></script>`)}
</body></html>`;
}

export function csrfField(csrf: string): Html {
  return html`<input type="hidden" name="_csrf" value="${csrf}">`;
}

/** A POST form with the CSRF field and one submit button (delete, cancel, enable...). */
export function actionForm(
  action: string,
  csrf: string,
  label: string,
  fields: Record<string, string> = {},
  opts: { confirm?: string; danger?: boolean } = {},
): Html {
  const hidden = Object.entries(fields).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`);
  const confirm = opts.confirm ? html` data-confirm="${opts.confirm}"` : '';
  return html`<form method="post" action="${action}" class="inline"${confirm}>${csrfField(csrf)}${hidden}<button type="submit"${opts.danger ? html` class="danger"` : ''}>${label}</button></form>`;
}

/**
 * A table in a focusable scroll region. Each cell carries its column's header in data-label: on a phone-sized
 * screen the stylesheet shows every row as a card of "header: value" lines instead of a wide table. A cell is text
 * (escaped) or an Html fragment.
 */
export function table(caption: string, headers: string[], rows: HtmlValue[][], empty: string): Html {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  return html`<div class="scroll" tabindex="0" role="region" aria-label="${caption}"><table><caption>${caption}</caption><thead><tr>${headers.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${rows.map((r) => html`<tr>${r.map((c, i) => html`<td data-label="${headers[i] ?? ''}">${c}</td>`)}</tr>`)}</tbody></table></div>`;
}

/**
 * Links between the pages of a list shown newest first: back to the newest when this page is an older one, and
 * on to the older ones when this page is full (`olderCursor`: the `before` value of the next page).
 */
export function olderNewerPager(
  labels: { pages: string; newest: string; older: string },
  path: string,
  onOlderPage: boolean,
  olderCursor: string | undefined,
): Html {
  return html`<nav class="pager" aria-label="${labels.pages}">${onOlderPage ? html`<a href="${path}">${labels.newest}</a>` : ''}
${olderCursor !== undefined ? html`<a href="${path}${path.includes('?') ? '&' : '?'}before=${encodeURIComponent(olderCursor)}">${labels.older}</a>` : ''}</nav>`;
}
