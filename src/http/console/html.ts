// Console HTML: escaping, the page frame (navigation, language switch, flash notice) and small form helpers.
import type { Lang, Messages } from './i18n.ts';

export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Markup already escaped (a page body built with `esc`). */
export type Html = string;

/**
 * Text a customer or a recipient wrote (a message, a campaign or list name, a reply), escaped in an element whose
 * direction follows its own first strong letter: a Hebrew text reads right to left on an English page, and an
 * English one left to right on a Hebrew page.
 */
export function userText(value: unknown, tag = 'span', attrs = ''): Html {
  return `<${tag} dir="auto"${attrs}>${esc(value)}</${tag}>`;
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
}

const NAV: Array<[string, keyof Messages]> = [
  ['/console/send', 'navSend'],
  ['/console/messages', 'navMessages'],
  ['/console/campaigns', 'navCampaigns'],
  ['/console/inbound', 'navInbound'],
  ['/console/tokens', 'navTokens'],
  ['/console/ips', 'navIps'],
  ['/console/push', 'navPush'],
  ['/console/balance', 'navBalance'],
  ['/console/senders', 'navSenders'],
  ['/console/lists', 'navLists'],
  ['/console/blocklist', 'navBlocklist'],
  ['/console/birthdays', 'navBirthdays'],
  ['/console/security', 'navSecurity'],
];

export function frame(o: FrameOptions): Html {
  const { t } = o;
  const dir = o.lang === 'he' ? 'rtl' : 'ltr';
  const other: Lang = o.lang === 'he' ? 'en' : 'he';
  const nav = o.user
    ? [...NAV, ...(o.user.isReseller ? [['/console/subaccounts', 'navSubs'] as [string, keyof Messages]] : [])]
        .map(([href, key]) => {
          const current = o.path === href || o.path.startsWith(`${href}/`);
          return `<li><a href="${href}"${current ? ' aria-current="page"' : ''}>${esc(t[key])}</a></li>`;
        })
        .join('')
    : '';
  const header = `<header class="top"><a class="brand" href="/console">Yona</a>
${o.user ? `<nav aria-label="${esc(t.navLabel)}"><ul>${nav}</ul></nav>` : ''}
<div class="who">${
    o.user
      ? `<span>${esc(o.user.username)}</span>
<form method="post" action="/console/logout">${csrfField(o.user.csrf)}<button type="submit" class="link">${esc(t.logout)}</button></form>`
      : ''
  }
<a href="/console/lang/${other}?back=${encodeURIComponent(o.path)}" lang="${other}" hreflang="${other}">${other === 'he' ? 'עברית' : 'English'}</a></div></header>`;
  const notice = o.notice
    ? `<p class="notice ${o.notice.kind}" role="${o.notice.kind === 'error' ? 'alert' : 'status'}">${esc(o.notice.text)}</p>`
    : '';
  return `<!doctype html><html lang="${o.lang}" dir="${dir}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">
<title>${esc(o.title)} · Yona</title><link rel="icon" href="/console/assets/favicon.svg" type="image/svg+xml"><link rel="stylesheet" href="/console/assets/console.css">
${(o.styles ?? []).map((s) => `<link rel="stylesheet" href="/console/assets/${s}">`).join('')}
</head><body><a class="skip" href="#main">${esc(t.skip)}</a>${header}
<main id="main" tabindex="-1"><h1>${esc(o.title)}</h1>${notice}${o.body}</main>
<script src="/console/assets/console.js" defer></script>
${(o.scripts ?? []).map((s) => `<script src="/console/assets/${s}" defer></script>`).join('')}
</body></html>`;
}

export function csrfField(csrf: string): Html {
  return `<input type="hidden" name="_csrf" value="${esc(csrf)}">`;
}

/** A POST form with the CSRF field and one submit button (delete, cancel, enable...). */
export function actionForm(
  action: string,
  csrf: string,
  label: string,
  fields: Record<string, string> = {},
  opts: { confirm?: string; danger?: boolean } = {},
): Html {
  const hidden = Object.entries(fields)
    .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
    .join('');
  const confirm = opts.confirm ? ` data-confirm="${esc(opts.confirm)}"` : '';
  return `<form method="post" action="${esc(action)}" class="inline"${confirm}>${csrfField(csrf)}${hidden}<button type="submit"${opts.danger ? ' class="danger"' : ''}>${esc(label)}</button></form>`;
}

/**
 * A table in a focusable scroll region. Each cell carries its column's header in data-label: on a phone-sized
 * screen the stylesheet shows every row as a card of "header: value" lines instead of a wide table.
 */
export function table(caption: string, headers: string[], rows: Html[][], empty: string): Html {
  if (rows.length === 0) return `<p class="empty">${esc(empty)}</p>`;
  const labels = headers.map(esc);
  return `<div class="scroll" tabindex="0" role="region" aria-label="${esc(caption)}"><table><caption>${esc(caption)}</caption><thead><tr>${headers.map((h) => `<th scope="col">${esc(h)}</th>`).join('')}</tr></thead>
<tbody>${rows.map((r) => `<tr>${r.map((c, i) => `<td data-label="${labels[i] ?? ''}">${c}</td>`).join('')}</tr>`).join('')}</tbody></table></div>`;
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
  return `<nav class="pager" aria-label="${esc(labels.pages)}">${onOlderPage ? `<a href="${esc(path)}">${esc(labels.newest)}</a>` : ''}
${olderCursor !== undefined ? `<a href="${esc(path)}${path.includes('?') ? '&amp;' : '?'}before=${encodeURIComponent(olderCursor)}">${esc(labels.older)}</a>` : ''}</nav>`;
}
