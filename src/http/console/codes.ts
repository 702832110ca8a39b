// One-time codes and verification messages at /console/codes, out of the campaign list: each code's phone, when
// it was sent, its message's delivery, and whether it was validated, replaced by a newer one, used up its tries or
// expired. The code itself is never shown (only its hash is stored).
import { toNational } from '../../domain/phone.ts';
import { codesPage, type CodeRow } from '../../store/read-models.ts';
import { when } from './format.ts';
import { html, olderNewerPager, table, type HtmlValue } from './html.ts';
import type { Messages } from './i18n.ts';
import { statusWords } from './message-log.ts';
import { whole, type ConsoleRouter, type PageContext } from './router.ts';

const PER_PAGE = 50;

function codeState(t: Messages, r: CodeRow, now: number): string {
  if (r.used_at !== null) return t.codeValidated;
  if (r.replaced_at !== null) return t.codeReplaced;
  if (r.attempts >= r.max_tries) return t.codeTriesUsed;
  if (r.expires_at <= now) return t.codeExpired;
  return t.codeWaiting;
}

async function codesList(c: PageContext) {
  const { t } = c;
  const tz = c.account.time_zone;
  const before = whole(c.query.before);
  const rows = await codesPage(c.app.store.db, c.account.id, before, PER_PAGE);
  const cells = rows.map((r): HtmlValue[] => [
    html`<span class="nowrap">${when(r.created_at, tz)}</span>`,
    html`<span class="nowrap">${toNational(r.phone)}</span>`,
    r.state === null ? '' : statusWords(t, c.lang, { state: r.state, status: r.status }),
    codeState(t, r, c.now),
    html`<span class="num">${`${r.attempts} / ${r.max_tries}`}</span>`,
    html`<span class="nowrap">${when(r.expires_at, tz)}</span>`,
  ]);
  const pager = olderNewerPager(
    t,
    '/console/codes',
    before !== undefined,
    rows.length === PER_PAGE ? String(rows.at(-1)!.id) : undefined,
  );
  return c.render(
    t.codesTitle,
    html`<p class="muted">${t.codesIntro}</p><p><a href="/console/campaigns?kind=verify">${t.codesVerify}</a></p>
${table(t.codesTitle, [t.logTime, t.phone, t.deliveryStatus, t.codeState, t.codeAttempts, t.codeExpires], cells, t.codesNone)}${pager}`,
  );
}

export function registerCodes(r: ConsoleRouter): void {
  r.get('/console/codes', (c) => codesList(c));
}
